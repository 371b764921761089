tar -xJf .devpack/k.tar.xz -C /tmp; cd /tmp/k; export LD_LIBRARY_PATH=/tmp/k/libs
O=/tmp/res_k; mkdir -p $O; nvidia-smi -L > $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 100 $M -np 2 ./robustfit_distributed_gpu_tests > $O/dist_np2.txt 2>&1; echo "rc $?" >> $O/dist_np2.txt
for i in 1 2 3; do for b in bench_dlts_before bench_distributed_lts; do
  timeout 40 $M -x ROBUSTFIT_TRACE=1 -np 1 ./$b --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_$b.csv > $O/trace_${b}_$i.txt 2>&1
  grep -E "engine only|engine made|finish_lts|r_squared|smallest_h" $O/trace_${b}_$i.txt > $O/t; mv $O/t $O/trace_${b}_$i.txt
done; done
tar -czf $OUT/res_k.tgz -C /tmp res_k
