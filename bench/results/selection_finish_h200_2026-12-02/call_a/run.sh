#!/usr/bin/env bash
# Call a (2026-12-02, session 4): band multiselection's plan (draws its sample; warp-aggregated
# band histogram), locate (prefix sums over the ranges in use, 32-bit below 2^32 values),
# compaction last step first (L2), one copy back; radix's shared-memory form finishing in one
# block; the bracket pass counting the finish's first digit (Floyd-Rivest, one-launch bracket).
# The whole GPU suite (app and distributed GPU tests: call b, the pack's 64 MiB); the multi
# phases; the issue-11 report (sel + peers); tune-radix; Floyd-Rivest and bracket singles.
N=a; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; date -u; (cd $REPO && git log -1 --format=%H); python3 -c 'import torch, sys; print("torch", torch.__version__, sys.version.split()[0])'; python3 -c 'import cupy; print("cupy", cupy.__version__)') > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
# Correctness first: the whole GPU suite (3 shards in parallel).
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait; save
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|^rc " $f | head -30) > ${f%.txt}_summary.txt; done; save
# Speed: the phases, the issue's report, tune-radix.
timeout 40 ./sel --sections multi-phases --sizes 24,26 --types float --runs 10 --out $O/phases.csv > $O/phases.log 2>&1; st phases $?
timeout 220 ./sel --sections single,multi,batched --types float,double --algorithms auto --sizes 20,22,23,24,25,26,28 --runs 5 --out $O/sel.csv > $O/sel.log 2>&1; st sel $?
timeout 40 python3 $REPO/bench/peers/selection_peers.py --out $O/peers.csv --runs 5 > $O/peers.log 2>&1; st peers $?
python3 $REPO/bench/selection_issue_report.py --bench $O/sel.csv --peers $O/peers.csv > $O/report.md 2> $O/report.err; st report $?
timeout 60 ./sel --sections tune-radix --types float,double --runs 10 --out $O/tune_radix.csv > $O/tune_radix.log 2>&1; st tune_radix $?
timeout 60 ./sel --sections single --algorithms floyd-rivest,bracket --sizes 24,28 --types float,double --runs 10 --out $O/single_fr.csv > $O/single_fr.log 2>&1; st single_fr $?
