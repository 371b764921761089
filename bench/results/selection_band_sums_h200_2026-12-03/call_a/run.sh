#!/usr/bin/env bash
# Call a (2026-12-03, session 7): the plan's wanted-run sum a warp at a time (one shared atomic a
# warp), the range counts summed over the blocks' rows (no global atomics), warp_exclusive_sum
# shared. Two builds of it: without (probe, sel) and with (probe_b, sel_b, the tests) the band
# reads asking the L2 for the next step ahead (visit_vectors<1>). The band phases, the multi
# section at 2^20-2^28 of each, the whole GPU suite (3 shards) of the second, ncu source
# counters of its one launch.
N=a; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./probe --kernels band --sizes 20,24 --runs 30 > $O/probe.csv 2> $O/probe.log; st probe $?
timeout 60 ./probe_b --kernels band --sizes 20,24 --runs 30 > $O/probe_b.csv 2> $O/probe_b.log; st probe_b $?
timeout 100 ./sel --sections multi --types float,double --algorithms sampled-multi,auto --sizes 20,22,24,26,28 --runs 10 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
timeout 100 ./sel_b --sections multi --types float,double --algorithms sampled-multi,auto --sizes 20,22,24,26,28 --runs 10 --out $O/multi_b.csv > $O/multi_b.log 2>&1; st multi_b $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 280 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure|rc " $f | head -40) > ${f%.txt}_summary.txt; done; save
# Where the one launch's warps wait, by instruction (2^24 floats, 101 ranks; kernel replay).
timeout 120 ncu --kernel-name regex:band_one_launch --launch-skip 3 --launch-count 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight --import-source yes -o $O/band ./probe_b --kernels band --sizes 24 --types float --runs 1 > $O/ncu.log 2>&1; st ncu $?
ncu --import $O/band.ncu-rep --page source --csv --print-source sass > $O/band_sass.csv 2>> $O/ncu.log
ncu --import $O/band.ncu-rep --page details > $O/band_details.txt 2>> $O/ncu.log; save
