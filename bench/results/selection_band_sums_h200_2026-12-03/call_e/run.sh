#!/usr/bin/env bash
# Call e (2026-12-03, session 7): main with `auto` taking sampled multiselection up to 1024
# ranks from 2^20 values (78fd604) and the multi section's adversarial set also at 2^22 with
# 101 and 1001 ranks: `auto` against one sort there, 2^20 and 2^22, float and double.
N=e; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,driver_version --format=csv; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 150 ./sel --sections multi --types float,double --algorithms sampled-multi,auto --sizes 20,22 --runs 10 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
