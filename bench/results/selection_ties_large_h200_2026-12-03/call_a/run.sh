#!/usr/bin/env bash
# Call a (2026-12-03, session 9): the separate kernels hand ties and narrow spans to the one
# launch (band_one_launch_on_ties). The multi section at 2^28 with the adversarial set (101
# ranks; the row sampled-multi-separate is the path before: the separate kernels, then the
# edges), then the whole robustfit_gpu_tests in 3 shards.
N=a; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 200 ./sel --sections multi --types float,double --algorithms sampled-multi,auto --sizes 28 --runs 5 --out $O/multi28.csv > $O/multi28.log 2>&1; st multi28 $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 280 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure|rc " $f | head -40) > ${f%.txt}_summary.txt; done; save
