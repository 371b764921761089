tar -xJf .devbin/f.tar.xz -C /tmp; cd /tmp/f
export LD_LIBRARY_PATH=/tmp/f/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_f; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_f.tgz -C /tmp res_f; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
B="--sections single --runs 5 --sizes 20,22,23,24,25 --types float,double"
timeout 100 ./sel_final $B --algorithms auto,radix,bracket --out $O/new.csv > $O/new.log 2>&1; st new $?
timeout 70 ./sel_0f2f $B --algorithms auto --out $O/old.csv > $O/old.log 2>&1; st old $?
timeout 40 ./robustfit_distributed_gpu_tests > $O/dgpu.txt 2>&1; st dgpu $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 240 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait; save
