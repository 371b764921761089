N=c; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
B="--sections multi --runs 5 --sizes 20,22,24,26,28 --types float,double"
timeout 150 ./sel_new $B --out $O/multi_new.csv > $O/multi_new.log 2>&1; st multi_new $?
timeout 40 ./sel_new --sections multi-phases --sizes 24,28 --types float,double --runs 5 --out $O/phases.csv > $O/phases.log 2>&1; st phases $?
timeout 150 ./sel_new --sections tune-multi --sizes 24,28 --types float,double --runs 3 --out $O/tune.csv > $O/tune.log 2>&1; st tune $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 250 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait; save
