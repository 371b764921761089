N=g; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for b in sel_new sel_A sel_new sel_A; do
  timeout 40 ./$b --sections multi-phases --sizes 24,28 --types float,double --runs 5 --out $O/phases_$b.$SECONDS.csv > $O/phases_$b.log 2>&1; st phases_$b $?
done
for b in sel_new sel_A; do
  timeout 60 ./$b --sections multi --sizes 24,28 --types float,double --runs 5 --algorithms sampled-multi --out $O/multi_$b.csv > $O/multi_$b.log 2>&1; st multi_$b $?
done
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 10; do save; jobs -r | grep -q . || break; done
wait; save
