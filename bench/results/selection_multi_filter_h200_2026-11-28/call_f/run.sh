tar -xJf .devbin/f.tar.xz -C /tmp; cd /tmp/f
export LD_LIBRARY_PATH=/tmp/f/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_f; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
timeout 100 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*:GpuSelectionCore.ManyRanks*' > $O/tests.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests.txt
for b in sel_af39 bench_selection_bench; do
  timeout 60 ./$b --sections multi --sizes 26,28 --algorithms sampled-multi --runs 5 --out $O/multi_$b.csv > /dev/null 2>&1
done
echo "multi at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 60 ./bench_selection_bench --sections multi-phases --sizes 28,26 --runs 5 --out $O/phases_new_1.csv > /dev/null 2>&1
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_f.tgz -C /tmp res_f
