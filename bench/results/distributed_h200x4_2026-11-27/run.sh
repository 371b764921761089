tar -xJf .devpack/u.tar.xz -C /tmp; cd /tmp/u; export LD_LIBRARY_PATH=/tmp/u/libs
O=/tmp/res_v; mkdir -p $O; nvidia-smi -L > $O/machine.txt; nproc >> $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 100 $M -np 4 ./robustfit_distributed_gpu_tests > $O/dist_gpu_np4.txt 2>&1; echo "rc $?" >> $O/dist_gpu_np4.txt
B="--p 10 --backend cuda --runs 1 --subsets 500"
for i in 1 2 3; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./bench_distributed_lts --n 1e7 $B --out $O/lts1.csv > $O/trace1_$i.txt 2>&1
  timeout 60 $M -np 1 taskset -c 0-15 ./bench_distributed_lts --n 1e7 $B --out $O/lts1_16cores.csv > /dev/null 2>&1
  timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_distributed_lts --per-rank 1e7 $B --out $O/lts4.csv > $O/trace4_$i.txt 2>&1
  timeout 90 $M -np 2 ./bench_distributed_lts --per-rank 1e7 $B --out $O/lts2.csv > /dev/null 2>&1
done
for np in 1 2 4; do timeout 90 $M -np $np ./bench_distributed_lts --n 1e7 $B --out $O/lts_strong.csv > /dev/null 2>&1; done
for np in 2 4; do for d in uniform normal; do
  timeout 60 $M -np $np ./bench_distributed_select_bench --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --out $O/dsel_${np}_$d.csv > $O/dsel_${np}_${d}.txt 2>&1
done; done
tar -czf $OUT/res_v.tgz -C /tmp res_v
