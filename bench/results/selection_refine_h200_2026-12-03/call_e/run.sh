#!/usr/bin/env bash
# Call e (2026-12-03, session 8): the split cells' arithmetic moved to band_cells.hpp (host and
# device, CPU-tested; the even splits' bits in one function): the sampled-multiselection tests and
# the multi section at 2^22 and 2^26 with the adversarial set.
N=e; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 120 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti.*:CudaAutomatic*' > $O/sampled_tests.txt 2>&1; st sampled_tests $?
(grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure" $O/sampled_tests.txt | head -20) > $O/sampled_tests_summary.txt
timeout 60 ./sel --sections multi --types float,double --algorithms auto --sizes 22,26 --runs 10 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
