#!/usr/bin/env bash
# Call e (2026-12-03, session 5): main a2b514d (the stamps' block guard, the probe's "declined"
# row): the radix/bracket/Floyd-Rivest GPU tests (3 shards) and the probe.
N=e; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./probe --kernels resident,bracket --sizes 20,22,24 --runs 30 > $O/probe.csv 2> $O/probe.log; st probe $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests --gtest_filter='*Radix*:*Bracket*:*FloydRivest*:*Selection*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 10; do save; jobs -r | grep -q . || break; done
wait
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|^rc " $f | head -30) > ${f%.txt}_summary.txt; done; save
