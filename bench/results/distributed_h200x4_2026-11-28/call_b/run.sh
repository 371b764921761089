tar -xJf .devbin/b.tar.xz -C /tmp; cd /tmp/b
export LD_LIBRARY_PATH=/tmp/b/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_b; mkdir -p $O; (nvidia-smi -L; nproc) > $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
B="--p 10 --backend cuda --runs 1 --subsets 500"
for b in bench_dlts_before bench_distributed_lts; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./$b --n 1e7 $B --out $O/lts1.csv > $O/trace_$b.txt 2>&1
done
tar -czf $OUT/res_b.tgz -C /tmp res_b
