tar -xJf .devpack/n.tar.xz -C /tmp; cd /tmp/n; export LD_LIBRARY_PATH=/tmp/n/libs
O=/tmp/res_n; mkdir -p $O; nvidia-smi -L > $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
for np in 1 2; do timeout 120 $M -np $np ./robustfit_distributed_gpu_tests > $O/dist_np$np.txt 2>&1; echo "rc $?" >> $O/dist_np$np.txt; done
for i in 1 2; do for b in bench_dlts_base bench_distributed_lts; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./$b --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_$b.csv > $O/trace_${b}_$i.txt 2>&1
done; done
tar -czf $OUT/res_n.tgz -C /tmp res_n
