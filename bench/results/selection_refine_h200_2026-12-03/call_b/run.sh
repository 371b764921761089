#!/usr/bin/env bash
# Call b (2026-12-03, session 8): call a with the aggregated counting by one ballot (the first
# active lane's cell adds once, the others alone) instead of __match_any_sync: its tests,
# the band phases, the multi section at 2^22 and 2^26 (with the adversarial set).
N=b; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 120 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti.*' > $O/sampled_tests.txt 2>&1; st sampled_tests $?
timeout 60 ./probe --kernels band --sizes 20,24 --runs 30 > $O/probe.csv 2> $O/probe.log; st probe $?
timeout 150 ./sel --sections multi --types float,double --algorithms sampled-multi,auto --sizes 22,26 --runs 10 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
