tar -xJf .devbin/k.tar.xz -C /tmp; cd /tmp/k
export LD_LIBRARY_PATH=/tmp/k/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_k; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
for np in 1 2 4; do timeout 100 $M -np $np ./robustfit_distributed_gpu_tests > $O/dgpu_np$np.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/dgpu_np$np.txt; done
echo "tests done at $(($(date +%s)-T0)) s" >> $O/machine.txt
for r in 1 2 3; do for b in 60f8 k; do for d in uniform normal; do
  timeout 60 $M -np 4 ./dsel_$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --commit $b --out $O/dsel.csv > /dev/null 2>&1
done; done; done
for r in 1 2; do for b in 60f8 k; do for d in uniform normal; do
  timeout 60 $M -np 2 ./dsel_$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --commit $b --out $O/dsel.csv > /dev/null 2>&1
done; done; done
echo "dsel done at $(($(date +%s)-T0)) s" >> $O/machine.txt
B="--p 10 --backend cuda --runs 1 --subsets 500 --commit k"
for r in 1 2 3; do for np in 1 4 2; do
  timeout 90 $M -np $np ./dlts_k --per-rank 1e7 $B --out $O/lts_weak.csv > /dev/null 2>&1
done; done
for np in 2 4; do timeout 90 $M -np $np ./dlts_k --n 1e7 $B --out $O/lts_strong.csv > /dev/null 2>&1; done
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_k.tgz -C /tmp res_k
