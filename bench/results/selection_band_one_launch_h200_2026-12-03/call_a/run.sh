#!/usr/bin/env bash
# Call a (2026-12-03, session 6): the band form in one cooperative launch (band_one_launch.cu),
# uncommitted work tree: the sampled-multiselection GPU tests (3 shards), then the multi section
# for sampled-multi (now one launch below 2^26), auto and the variants (sampled-multi-separate:
# the seven kernels as before) at 2^20-2^26, floats and doubles.
N=a; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests --gtest_filter='*SampledMulti*:*Multi*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure|rc " $f | head -40) > ${f%.txt}_summary.txt; done; save
timeout 200 ./sel --sections multi --types float,double --algorithms sampled-multi,auto --sizes 20,22,24,26 --runs 10 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
