N=h; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
B="--sections single --runs 5 --sizes 20,21 --types float,double --algorithms radix"
timeout 20 ./sel_new $B --out $O/radix_new.csv > $O/radix_new.log 2>&1; st radix_new $?
timeout 20 ./sel_main $B --out $O/radix_old.csv > $O/radix_old.log 2>&1; st radix_old $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 120 ./robustfit_gpu_tests --gtest_filter='GpuSelectionCore.*:SeedAlgorithms.*:GpuFloydRivest.*:GpuCapabilityCells.*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 10; do save; jobs -r | grep -q . || break; done
wait; save
