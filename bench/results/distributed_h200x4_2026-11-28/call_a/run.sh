set -u
tar -xJf .devbin/a.tar.xz -C /tmp; cd /tmp/a
export LD_LIBRARY_PATH=/tmp/a/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_a; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt
ldd ./bench_distributed_select_bench | grep -E "not found|nccl" >> $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
for np in 4 2 1; do timeout 100 $M -np $np ./robustfit_distributed_gpu_tests > $O/gpu_np$np.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/gpu_np$np.txt; done
timeout 120 $M -np 4 ./robustfit_distributed_tests > $O/cpu_np4.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/cpu_np4.txt
B="--p 10 --backend cuda --runs 1 --subsets 500"
for i in 1 2; do for b in bench_dlts_before bench_distributed_lts; do
  c=93d8fba; [ $b = bench_distributed_lts ] && c=fa3c10e
  timeout 60 $M -np 1 ./$b --n 1e7 $B --commit $c --out $O/lts1.csv > /dev/null 2>&1
  timeout 90 $M -np 4 ./$b --per-rank 1e7 $B --commit $c --out $O/lts4.csv > /dev/null 2>&1
done; done
echo "lts done at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_distributed_lts --per-rank 1e7 $B --commit fa3c10e --out $O/lts4.csv > $O/trace4.txt 2>&1
timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_dlts_before --per-rank 1e7 $B --commit 93d8fba --out $O/lts4.csv > $O/trace4_before.txt 2>&1
for i in 1 2; do for np in 4 2; do for b in bench_dsel_before bench_distributed_select_bench; do for d in uniform normal; do
  c=93d8fba; [ $b = bench_distributed_select_bench ] && c=fa3c10e
  timeout 60 $M -np $np ./$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --commit $c --out $O/dsel.csv > /dev/null 2>&1
done; done; done; done
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_a.tgz -C /tmp res_a
