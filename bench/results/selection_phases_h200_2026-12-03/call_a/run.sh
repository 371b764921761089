#!/usr/bin/env bash
# Call a (2026-12-03, session 5): where the one-launch kernels' time goes (bench_phase_probe:
# the resident radix at 2^16-2^22, the one-launch bracket at 2^22-2^25, float and double),
# the radix and bracket GPU tests on the stamped kernels, and the auto medians for reference.
N=a; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 100 ./probe --kernels resident --sizes 16,20,22 --runs 50 > $O/probe_resident.csv 2> $O/probe_resident.log; st probe_resident $?
timeout 100 ./probe --kernels bracket --sizes 22,24,25 --runs 50 > $O/probe_bracket.csv 2> $O/probe_bracket.log; st probe_bracket $?
timeout 150 ./robustfit_gpu_tests --gtest_filter='*Radix*:*Bracket*:*FloydRivest*' > $O/tests.txt 2>&1; st tests $?
(grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST" $O/tests.txt | head -30) > $O/tests_summary.txt
timeout 100 ./sel --sections single --types float,double --algorithms auto --sizes 20,24 --runs 5 --out $O/sel.csv > $O/sel.log 2>&1; st sel $?
