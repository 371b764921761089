#!/usr/bin/env bash
# Call c (2026-12-02, session 4): as landed after review (the bracket pass's flush and the
# resident radix's append through the existing seed helpers): the whole GPU suite; the medians
# and percentiles the changes touch (single at 2^20/2^24/2^28, multi at 2^24-2^28, auto).
N=c; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|^rc " $f | head -30) > ${f%.txt}_summary.txt; done; save
timeout 120 ./sel --sections single,multi --types float,double --algorithms auto --sizes 20,24,26,28 --runs 5 --out $O/sel.csv > $O/sel.log 2>&1; st sel $?
