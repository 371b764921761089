N=b; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
B="--sections single --runs 5 --sizes 20,23,24,25 --types float,double --algorithms auto,bracket,floyd-rivest"
timeout 80 ./sel_wip $B --out $O/wip.csv > $O/wip.log 2>&1; st wip $?
timeout 80 ./sel_main $B --out $O/main.csv > $O/main.log 2>&1; st main $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 250 ./tests_wip --gtest_filter='GpuBracket*:GpuSelection*:GpuFloyd*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait; save
