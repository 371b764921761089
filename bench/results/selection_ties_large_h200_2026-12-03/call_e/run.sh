#!/usr/bin/env bash
# Call e (2026-12-03, session 9): the new GpuSampledMulti.EdgesSampleOnlyThisInput, on this build
# and on a build with the edges' reuse of the band form's sample as before (be52bdc with
# ccbdc01's sampled_multi_select.cu: tests_bug), where it must fail; then the band form's tests.
N=e; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./tests_bug --gtest_filter='GpuSampledMulti.EdgesSampleOnlyThisInput' > $O/tests_bug.txt 2>&1; st tests_bug $?
timeout 100 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti.EdgesSampleOnlyThisInput:GpuSampledMulti.BandTable*:GpuSampledMulti.OneLaunch*:GpuSampledMulti.CrowdedAndHuge*' > $O/tests.txt 2>&1; st tests $?
