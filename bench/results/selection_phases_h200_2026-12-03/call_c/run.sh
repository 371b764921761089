#!/usr/bin/env bash
# Call c (2026-12-03, session 5): the resident radix in blocks of 512 threads (no spills; call b,
# 1024 threads, spent ~14 us before its first flush), its fine histogram at 16 (default), 12 and 14 bits;
# the one-launch bracket's
# first digit by rows against atomics, and the radix/bracket GPU tests (3 shards).
N=c; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./probe --kernels resident,resident-f12,resident-f14 --types float,double --sizes 16,20,22 --runs 30 > $O/probe_resident.csv 2> $O/probe_resident.log; st probe_resident $?
timeout 60 ./probe --kernels bracket,bracket-atomics --sizes 24 --runs 30 > $O/probe_bracket.csv 2> $O/probe_bracket.log; st probe_bracket $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests --gtest_filter='*Radix*:*Bracket*:*FloydRivest*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 10; do save; jobs -r | grep -q . || break; done
wait
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|^rc |Failure" $f | head -30) > ${f%.txt}_summary.txt; done; save
