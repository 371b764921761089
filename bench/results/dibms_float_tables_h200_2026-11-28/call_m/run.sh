tar -xJf .devbin/m.tar.xz -C /tmp; cd /tmp/m
export LD_LIBRARY_PATH=/tmp/m/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_m; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
timeout 60 $M -np 4 ./robustfit_distributed_gpu_tests > $O/dgpu_np4.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/dgpu_np4.txt
for r in 1 2 3; do for b in k m; do for d in uniform normal; do
  timeout 30 $M -np 4 ./dsel_$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --commit $b --out $O/dsel.csv > /dev/null 2>&1
done; done; done
echo "dsel done at $(($(date +%s)-T0)) s" >> $O/machine.txt
B="--p 10 --backend cuda --runs 1 --subsets 500"
for r in 1 2; do for b in k m; do for np in 4 1; do
  timeout 40 $M -np $np ./dlts_$b --per-rank 1e7 $B --commit $b --out $O/lts_weak.csv > /dev/null 2>&1
done; done; done
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_m.tgz -C /tmp res_m
