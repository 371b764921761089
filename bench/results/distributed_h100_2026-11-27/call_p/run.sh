tar -xJf .devpack/p.tar.xz -C /tmp; cd /tmp/p; export LD_LIBRARY_PATH=/tmp/p/libs
O=/tmp/res_p; mkdir -p $O; nvidia-smi -L > $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
for np in 1 2; do timeout 120 $M -np $np ./robustfit_distributed_gpu_tests > $O/dist_np$np.txt 2>&1; echo "rc $?" >> $O/dist_np$np.txt; done
for i in 1 2; do for b in bench_dlts_base bench_distributed_lts; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./$b --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_$b.csv > $O/trace_${b}_$i.txt 2>&1
done; done
for i in 1 2; do for b in bench_dsel_main bench_distributed_select_bench; do for d in uniform normal; do
  timeout 60 $M -np 1 ./$b --total-log2 29 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --out $O/dsel_${b}_$d.csv > $O/dsel_${b}_${d}_$i.txt 2>&1
done; done; done
tar -czf $OUT/res_p.tgz -C /tmp res_p
