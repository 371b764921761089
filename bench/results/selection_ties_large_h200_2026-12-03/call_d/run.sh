#!/usr/bin/env bash
# Call d (2026-12-03, session 9): the build as landed (call c's with the counting reads' cells
# computed as before, and count_read_cells / publish_counts shared in band_one_launch.cu). The
# multi section with `auto` at 2^20-2^28 on both types (the adversarial set at 2^22, 2^26 and
# now 2^28; issue 11's adversarial table from it), then the whole robustfit_gpu_tests.
N=d; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 150 ./sel --sections multi --types float,double --algorithms auto --sizes 20,22,24,26,28 --runs 5 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
python3 $REPO/bench/selection_issue_report.py --bench $O/multi.csv > $O/report.md 2> $O/report.err; st report $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 280 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure|rc " $f | head -40) > ${f%.txt}_summary.txt; done; save
