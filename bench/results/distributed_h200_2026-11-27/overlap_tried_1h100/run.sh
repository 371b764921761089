tar -xJf .devpack/j.tar.xz -C /tmp; cd /tmp/j; export LD_LIBRARY_PATH=/tmp/j/libs
O=/tmp/res_j; mkdir -p $O; nvidia-smi -L > $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 120 $M -np 2 ./robustfit_distributed_gpu_tests > $O/dist_np2.txt 2>&1; echo "rc $?" >> $O/dist_np2.txt
timeout 120 $M -np 1 ./robustfit_distributed_gpu_tests > $O/dist_np1.txt 2>&1; echo "rc $?" >> $O/dist_np1.txt
for i in 1 2; do for b in bench_dlts_before bench_distributed_lts; do for np in 1 2; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np $np ./$b --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_$b.csv > $O/trace_${b}_np${np}_$i.txt 2>&1
  grep -v "trace converge\|c_step\|subsample group\|merged set" $O/trace_${b}_np${np}_$i.txt > $O/t && mv $O/t $O/trace_${b}_np${np}_$i.txt
done; done; done
tar -czf $OUT/res_j.tgz -C /tmp res_j
