#!/usr/bin/env bash
# Call e (2026-12-03, session 6): call d's code with stamps inside the plan (band_passes.cuh):
# the band phases only.
N=e; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 60 ./probe --kernels band --sizes 20,24 --runs 30 > $O/probe.csv 2> $O/probe.log; st probe $?
