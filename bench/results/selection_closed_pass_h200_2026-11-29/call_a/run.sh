tar -xJf .devbin/a.tar.xz -C /tmp; cd /tmp/a
export LD_LIBRARY_PATH=/tmp/a/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_a; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
timeout 150 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*:GpuSelectionCore.ManyRanks*' > $O/tests.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests.txt
for np in 1 2; do
 timeout 100 $M -np $np ./robustfit_distributed_gpu_tests > $O/dgpu_np$np.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/dgpu_np$np.txt
 timeout 100 $M -np $np ./robustfit_distributed_tests --gtest_filter='*/cuda' > $O/dist_cuda_np$np.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/dist_cuda_np$np.txt
done
echo "tests done at $(($(date +%s)-T0)) s" >> $O/machine.txt
# DIBMS at np 1 on 2^28 floats (one shard of the 4-GPU case), old and new alternating
for r in 1 2; do for b in dsel_74a2 bench_distributed_select_bench; do for d in uniform normal; do
  timeout 60 $M -np 1 ./$b --total-log2 28 --runs 7 --distribution $d --methods dibms,single-shard --commit $b --out $O/dsel1.csv > /dev/null 2>&1
done; done; done
echo "dsel done at $(($(date +%s)-T0)) s" >> $O/machine.txt
for r in 1 2; do for b in sel_74a2 bench_selection_bench; do
  timeout 60 ./$b --sections multi --sizes 26,28 --algorithms sampled-multi --runs 5 --out $O/multi_$b.csv > /dev/null 2>&1
done; done
timeout 60 ./bench_selection_bench --sections multi-phases --sizes 28 --runs 5 --out $O/phases28.csv > /dev/null 2>&1
echo "multi done at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 120 ./bench_selection_bench --sections tune-multi --sizes 24,26 --runs 5 --out $O/tune2426.csv > $O/tune.log 2>&1
echo "rc $? all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_a.tgz -C /tmp res_a
