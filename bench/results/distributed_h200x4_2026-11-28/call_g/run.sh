tar -xJf .devbin/g.tar.xz -C /tmp; cd /tmp/g
export LD_LIBRARY_PATH=/tmp/g/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_g; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
timeout 200 ./robustfit_gpu_tests > $O/gpu_tests.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/gpu_tests.txt
timeout 100 $M -np 2 ./robustfit_distributed_gpu_tests > $O/gpu_np2.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/gpu_np2.txt
B="--p 10 --backend cuda --runs 1 --subsets 500 --commit 37e86b7"
for i in 1 2 3 4; do for np in 1 4 2; do
  timeout 90 $M -np $np ./bench_distributed_lts --per-rank 1e7 $B --out $O/lts_weak.csv > /dev/null 2>&1
done; done
for np in 2 4; do timeout 90 $M -np $np ./bench_distributed_lts --n 1e7 $B --out $O/lts_strong.csv > /dev/null 2>&1; done
echo "lts done at $(($(date +%s)-T0)) s" >> $O/machine.txt
for np in 4 2; do for d in uniform normal; do
  timeout 60 $M -np $np ./bench_distributed_select_bench --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard,gather-sort --commit 37e86b7 --out $O/dsel.csv > /dev/null 2>&1
done; done
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_g.tgz -C /tmp res_g
