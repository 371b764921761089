tar -xJf .devbin/l.tar.xz -C /tmp; cd /tmp/l
export LD_LIBRARY_PATH=/tmp/l/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_l; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
B="--p 10 --backend cuda --runs 1 --subsets 500"
for r in 1 2 3; do for b in 60f8 k; do for np in 4 1; do
  timeout 90 $M -np $np ./dlts_$b --per-rank 1e7 $B --commit $b --out $O/lts_weak.csv > /dev/null 2>&1
done; done; done
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_l.tgz -C /tmp res_l
