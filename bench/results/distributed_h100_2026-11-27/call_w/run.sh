tar -xJf .devpack/w.tar.xz -C /tmp; cd /tmp/w; export LD_LIBRARY_PATH=/tmp/w/libs
O=/tmp/res_w; mkdir -p $O; nvidia-smi -L > $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 100 $M -np 4 ./robustfit_distributed_gpu_tests > $O/dist_gpu_np4.txt 2>&1; echo "rc $?" >> $O/dist_gpu_np4.txt
for i in 1 2; do for np in 4 2; do for b in bench_dsel_f342 bench_distributed_select_bench; do for d in uniform normal; do
  timeout 60 $M -np $np ./$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --out $O/dsel_${np}_${b}_$d.csv > $O/dsel_${np}_${b}_${d}_$i.txt 2>&1
done; done; done; done
B="--p 10 --backend cuda --runs 1 --subsets 500"
for i in 1 2; do for b in bench_dlts_f342 bench_distributed_lts; do
  timeout 60 $M -np 1 ./$b --n 1e7 $B --out $O/lts1_$b.csv > /dev/null 2>&1
  timeout 90 $M -np 4 ./$b --per-rank 1e7 $B --out $O/lts4_$b.csv > /dev/null 2>&1
done; done
tar -czf $OUT/res_w.tgz -C /tmp res_w
