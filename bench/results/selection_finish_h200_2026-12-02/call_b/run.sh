#!/usr/bin/env bash
# Call b (2026-12-02, session 4): after call a, the one-launch bracket back to its own digit
# counting and the band form's draw back in its own kernel (both slower in call a), the
# backward compaction dropped (no gain); new: the band compaction writing at per-block cursors
# in shared memory (place_bands from the counting read's per-block counts). The whole GPU suite;
# the multi phases; the issue-11 report (sel + peers); ncu of the band locate at 2^24 floats.
N=b; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; date -u; (cd $REPO && git log -1 --format=%H); python3 -c 'import torch, sys; print("torch", torch.__version__, sys.version.split()[0])'; python3 -c 'import cupy; print("cupy", cupy.__version__)') > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait; save
for f in $O/tests_*.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|^rc " $f | head -30) > ${f%.txt}_summary.txt; done; save
timeout 40 ./sel --sections multi-phases --sizes 24,26 --types float --runs 10 --out $O/phases.csv > $O/phases.log 2>&1; st phases $?
timeout 200 ./sel --sections single,multi,batched --types float,double --algorithms auto --sizes 20,22,23,24,25,26,28 --runs 5 --out $O/sel.csv > $O/sel.log 2>&1; st sel $?
timeout 40 python3 $REPO/bench/peers/selection_peers.py --out $O/peers.csv --runs 5 > $O/peers.log 2>&1; st peers $?
python3 $REPO/bench/selection_issue_report.py --bench $O/sel.csv --peers $O/peers.csv > $O/report.md 2> $O/report.err; st report $?
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
timeout 60 $NCU --set full --kernel-name regex:locate_bands --launch-skip 2 --launch-count 1 -o $O/locate24 ./sel --sections multi --algorithms sampled-multi --sizes 24 --types float --runs 3 --out $O/ncu_multi.csv > $O/ncu_locate24.log 2>&1; st ncu_locate24 $?
timeout 40 $NCU --import $O/locate24.ncu-rep --page details --csv > $O/locate24_details.csv 2>&1; timeout 40 $NCU --import $O/locate24.ncu-rep --page source --csv --print-source sass > $O/locate24_source.csv 2>&1; xz -9 $O/locate24_source.csv; rm -f $O/locate24.ncu-rep; st ncu_import $?
