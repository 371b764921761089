#!/usr/bin/env bash
# Call b (2026-12-03, session 9): call a's build with the edges drawing their own sample where
# the band form's is smaller (it was half stale). The band one launch's phases at 2^26 on the
# adversarial inputs (bench_phase_probe --distributions), the multi section at 2^28 again, and
# GpuSampledMulti.
N=b; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*' > $O/tests_multi.txt 2>&1; st tests $?
timeout 150 ./probe --kernels band --sizes 26 --runs 20 --distributions uniform,bucket_killer,all_equal,distinct_d,two_values_95 > $O/probe.csv 2> $O/probe.log; st probe $?
timeout 200 ./sel --sections multi --types float,double --algorithms sampled-multi,auto --sizes 28 --runs 5 --out $O/multi28.csv > $O/multi28.log 2>&1; st multi28 $?
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure" $O/tests_multi.txt | head -40 > $O/tests_multi_summary.txt; save
