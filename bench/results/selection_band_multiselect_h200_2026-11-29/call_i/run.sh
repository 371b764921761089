N=i; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 100 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*' > $O/multi_tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/multi_tests_$i.txt) &
done
wait; save
timeout 20 ./sel --sections multi-phases --sizes 24,28 --types float,double --runs 5 --out $O/phases.csv > $O/phases.log 2>&1; st phases $?
timeout 60 ./sel --sections multi --algorithms auto --sizes 24,26,28 --types float,double --runs 5 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
