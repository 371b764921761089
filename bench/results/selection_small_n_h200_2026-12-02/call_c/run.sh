#!/usr/bin/env bash
# Call c (2026-12-02): radix select's shared-memory form (radix_resident.cu, uncommitted try on
# 2cc9e70): its tests and the selection tests around it; the call's pieces (probe); tune-radix
# (the old one launch and the resident form, same run); issue 11's report (sel + peers); ncu's
# full report of the one-launch bracket at 2^24 floats (auto's median there).
N=c; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; date -u; (cd $REPO && git log -1 --format=%H); python3 -c 'import torch, sys; print("torch", torch.__version__, sys.version.split()[0])'; python3 -c 'import cupy; print("cupy", cupy.__version__)') > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 150 ./robustfit_gpu_tests --gtest_filter='GpuRadixForms*:GpuSelectionCore*:GpuCapability*:*Adversarial*:GpuFloydRivest*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
wait; save
timeout 30 ./latency_probe --runs 300 > $O/probe.csv 2> $O/probe.log; st probe $?
timeout 90 ./sel --sections tune-radix --types float,double --runs 10 --out $O/tune_radix.csv > $O/tune_radix.log 2>&1; st tune_radix $?
timeout 200 ./sel --sections single,multi,batched --types float,double --algorithms auto --sizes 20,22,23,24,25,26,28 --runs 5 --out $O/sel.csv > $O/sel.log 2>&1; st sel $?
timeout 40 python3 $REPO/bench/peers/selection_peers.py --out $O/peers.csv --runs 5 > $O/peers.log 2>&1; st peers $?
python3 $REPO/bench/selection_issue_report.py --bench $O/sel.csv --peers $O/peers.csv > $O/report.md 2> $O/report.err; st report $?
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
timeout 90 $NCU --set full --kernel-name regex:bracket_one_launch --launch-skip 2 --launch-count 1 -o $O/bracket24 ./sel --sections single --algorithms bracket --sizes 24 --types float --runs 3 --out $O/ncu_single.csv > $O/ncu_bracket24.log 2>&1; st ncu_bracket24 $?
timeout 40 $NCU --import $O/bracket24.ncu-rep --page details --csv > $O/bracket24_details.csv 2>&1; timeout 40 $NCU --import $O/bracket24.ncu-rep --page source --csv --print-source sass > $O/bracket24_source.csv 2>&1; rm -f $O/bracket24.ncu-rep; st ncu_import $?
# Band multiselection's locate (one block) at 2^24 floats, 101 ranks: ncu's full report; the phases.
timeout 60 $NCU --set full --kernel-name regex:locate_bands --launch-skip 2 --launch-count 1 -o $O/locate24 ./sel --sections multi --algorithms sampled-multi --sizes 24 --types float --runs 3 --out $O/ncu_multi.csv > $O/ncu_locate24.log 2>&1; st ncu_locate24 $?
timeout 40 $NCU --import $O/locate24.ncu-rep --page details --csv > $O/locate24_details.csv 2>&1; timeout 40 $NCU --import $O/locate24.ncu-rep --page source --csv --print-source sass > $O/locate24_source.csv 2>&1; rm -f $O/locate24.ncu-rep; st ncu_import2 $?
timeout 30 ./sel --sections multi-phases --sizes 24 --types float --runs 10 --out $O/phases.csv > $O/phases.log 2>&1; st phases $?
