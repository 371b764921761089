#!/usr/bin/env bash
# Call c (2026-12-03, session 9): the counting reads compute a step's cells before any atomic
# (band_passes.cuh cells_of). The band one launch's phases, before (be52bdc, probe_old) and after,
# alternating, at 2^24 (uniform, normal) and 2^26 (uniform and the adversarial set); the multi
# section at 2^28; GpuSampledMulti.
N=c; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for b in probe_old probe; do
  timeout 40 ./$b --kernels band --sizes 24 --runs 30 --distributions uniform,normal > $O/${b}_24.csv 2>> $O/probe.log; st ${b}_24 $?
done
for b in probe_old probe; do
  timeout 80 ./$b --kernels band --sizes 26 --runs 20 --distributions uniform,bucket_killer,distinct_d,all_equal > $O/${b}_26.csv 2>> $O/probe.log; st ${b}_26 $?
done
timeout 150 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*' > $O/tests_multi.txt 2>&1; st tests $?
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure" $O/tests_multi.txt | head -40 > $O/tests_multi_summary.txt; save
timeout 120 ./sel --sections multi --types float,double --algorithms sampled-multi,auto --sizes 28 --runs 5 --out $O/multi28.csv > $O/multi28.log 2>&1; st multi28 $?
