tar -xJf .devpack/m.tar.xz -C /tmp; cd /tmp/m; export LD_LIBRARY_PATH=/tmp/m/libs
O=/tmp/res_m; mkdir -p $O; nvidia-smi -L > $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
for np in 1 2; do timeout 120 $M -np $np ./robustfit_distributed_gpu_tests > $O/dist_np$np.txt 2>&1; echo "rc $?" >> $O/dist_np$np.txt; done
timeout 120 $M -np 2 ./dist_gpu_nocopy > $O/nocopy_np2.txt 2>&1; echo "rc $?" >> $O/nocopy_np2.txt
for i in 1 2; do for b in bench_distributed_lts bench_dlts_nocopy; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./$b --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_$b.csv > $O/trace_${b}_$i.txt 2>&1
done; done
for d in uniform normal; do timeout 60 $M -np 1 ./bench_distributed_select_bench --total-log2 29 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --out $O/dsel_$d.csv > $O/dsel_$d.txt 2>&1; done
tar -czf $OUT/res_m.tgz -C /tmp res_m
