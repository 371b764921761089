tar -xJf .devbin/e.tar.xz -C /tmp; cd /tmp/e
export LD_LIBRARY_PATH=/tmp/e/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_e; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_e.tgz -C /tmp res_e; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./robustfit_gpu_tests --gtest_filter='GpuFloydRivest.*Sorted*:GpuBracket.Tiny*' > $O/smoke.txt 2>&1; st smoke $?
B="--sections single --runs 5"
timeout 60 ./sel_exp4 $B --sizes 20,22,24 --types float,double --algorithms bracket,radix,floyd-rivest --out $O/small.csv > $O/small.log 2>&1; st small $?
ROBUSTFIT_BRACKET_SAMPLE=8192 timeout 50 ./sel_exp4 $B --sizes 22,24,26 --types float,double --algorithms bracket --out $O/s8192.csv > $O/s8192.log 2>&1; st s8192 $?
timeout 60 ./sel_exp4 $B --sizes 26,28 --types float,double --algorithms floyd-rivest,bracket --out $O/big.csv > $O/big.log 2>&1; st big $?
timeout 40 ./sel_0f2f $B --sizes 28 --types float,double --algorithms floyd-rivest --out $O/big_old.csv > $O/big_old.log 2>&1; st big_old $?
F='GpuBracket*:GpuFloydRivest*'
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 170 ./robustfit_gpu_tests --gtest_filter="$F" > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait; save
