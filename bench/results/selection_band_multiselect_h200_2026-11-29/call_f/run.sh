N=f; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for b in sel_new sel_c32; do
  timeout 40 ./$b --sections multi-phases --sizes 24,28 --types float,double --runs 5 --out $O/phases_$b.csv > $O/phases_$b.log 2>&1; st phases_$b $?
  timeout 60 ./$b --sections multi --sizes 24,28 --types float,double --runs 5 --algorithms sampled-multi --out $O/multi_$b.csv > $O/multi_$b.log 2>&1; st multi_$b $?
done
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*:*Multi*:*Capabilit*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 10; do save; jobs -r | grep -q . || break; done
wait; save
timeout 100 /usr/local/cuda/bin/ncu --kernel-name regex:'compact_bands|count_bands' --launch-count 2 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis -o $O/prof ./sel_new --sections multi --sizes 28 --types float --algorithms sampled-multi --runs 1 --out $O/x.csv > $O/ncu.log 2>&1; st ncu $?
/usr/local/cuda/bin/ncu --import $O/prof.ncu-rep --page details > $O/details.txt 2>&1; st details $?
