#!/usr/bin/env bash
# Call b (2026-12-02, main 2cc9e70 + bench/call_latency_probe.cu): a small call's pieces
# (bench_call_latency_probe) and ncu's kernel durations of radix's one launch (2^16, 2^20),
# the one-launch bracket (2^24) and band multiselection's kernels (101 ranks, 2^24), floats.
N=b; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
timeout 60 ./latency_probe --runs 300 > $O/probe.csv 2> $O/probe.log; st probe $?
timeout 60 ./latency_probe --runs 300 > $O/probe2.csv 2>> $O/probe.log; st probe2 $?
M=gpu__time_duration.sum
timeout 90 $NCU --kernel-name regex:radix_one_launch --launch-count 8 --metrics $M --csv ./latency_probe --runs 1 > $O/ncu_radix.csv 2>&1; st ncu_radix $?
timeout 120 $NCU --kernel-name regex:'bracket_one_launch|radix_one_launch' --launch-count 24 --metrics $M --csv ./selection_bench --sections single --algorithms bracket,radix --sizes 20,24 --types float --runs 3 --out $O/single.csv > $O/ncu_single.csv 2>&1; st ncu_single $?
timeout 120 $NCU --kernel-name regex:'draw_sample|plan_bands|count_bands|locate_bands|compact_bands|select_in_bands' --launch-count 30 --metrics $M --csv ./selection_bench --sections multi --algorithms sampled-multi --sizes 24 --types float --runs 3 --out $O/multi.csv > $O/ncu_multi.csv 2>&1; st ncu_multi $?
timeout 60 ./selection_bench --sections multi-phases --sizes 24 --types float --runs 10 --out $O/phases.csv > $O/phases.log 2>&1; st phases $?
