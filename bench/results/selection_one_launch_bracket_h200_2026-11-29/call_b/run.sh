tar -xJf .devbin/b.tar.xz -C /tmp; cd /tmp/b
export LD_LIBRARY_PATH=/tmp/b/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_b; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_b.tgz -C /tmp res_b; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./robustfit_gpu_tests --gtest_filter='GpuBracket.Tiny*' > $O/smoke.txt 2>&1; st smoke $?
B="--sections single --runs 5"
timeout 60 ./sel_exp $B --sizes 20,22,24 --types float,double --algorithms bracket,radix,auto --out $O/new_small.csv > $O/new_small.log 2>&1; st new_small $?
timeout 60 ./sel_0f2f $B --sizes 20,22,24 --types float,double --algorithms bracket,radix,auto --out $O/old_small.csv > $O/old_small.log 2>&1; st old_small $?
ROBUSTFIT_BRACKET_SAMPLE=2048 timeout 50 ./sel_exp $B --sizes 22,24,26 --types float,double --algorithms bracket --out $O/new_s2048.csv > $O/new_s2048.log 2>&1; st s2048 $?
ROBUSTFIT_BRACKET_SAMPLE=8192 timeout 60 ./sel_exp $B --sizes 26,28 --types float,double --algorithms bracket --out $O/new_s8192.csv > $O/new_s8192.log 2>&1; st s8192 $?
timeout 70 ./sel_0f2f $B --sizes 26,28 --types float,double --algorithms bracket,floyd-rivest --out $O/old_big.csv > $O/old_big.log 2>&1; st old_big $?
F='GpuBracket*:GpuFloydRivest*:GpuSelectionCore*:GpuCapabilityCells*:SeedAlgorithms*:GpuSanitizerSmoke*'
for i in 0 1; do
  (GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests --gtest_filter="$F" > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait; save
