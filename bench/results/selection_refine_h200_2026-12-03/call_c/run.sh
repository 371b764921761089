#!/usr/bin/env bash
# Call c (2026-12-03, session 8): call b with the crowded ranges the sample shows split before
# the counting read (split_sampled_crowds: no read more for ties and the bucket killer), and
# the tests of both paths: the band phases at 2^20 and 2^24, the multi section at 2^22 and 2^26
# (with the adversarial set), the whole robustfit_gpu_tests.
N=c; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./probe --kernels band --sizes 20,24 --runs 30 > $O/probe.csv 2> $O/probe.log; st probe $?
timeout 150 ./sel --sections multi --types float,double --algorithms sampled-multi,auto --sizes 22,26 --runs 10 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 280 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure|rc " $f | head -40) > ${f%.txt}_summary.txt; done; save
