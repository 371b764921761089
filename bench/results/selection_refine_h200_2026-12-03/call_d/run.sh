#!/usr/bin/env bash
# Call d (2026-12-03, session 8): the build of call c (the crowded ranges split before or after
# the counting read). Issue 11's report regenerated (sel single, multi, batched with `auto` and
# the peers, bench/selection_issue_report.py); then the multi section with sampled-multi at
# 2^20-2^26 from main before this session (fa51947, `sel_old`) and from this build, old then
# new, for the rows before and after in one run. Then the app tests (the distributed GPU tests left out: the carry limit).
N=d; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; date -u; python3 -c 'import torch, sys; print("torch", torch.__version__, sys.version.split()[0])'; python3 -c 'import cupy; print("cupy", cupy.__version__)') > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 220 ./sel --sections single,multi,batched --types float,double --algorithms auto --sizes 20,22,23,24,25,26,28 --runs 5 --out $O/sel.csv > $O/sel.log 2>&1; st sel $?
timeout 60 python3 $REPO/bench/peers/selection_peers.py --out $O/peers.csv --runs 5 > $O/peers.log 2>&1; st peers $?
python3 $REPO/bench/selection_issue_report.py --bench $O/sel.csv --peers $O/peers.csv > $O/report.md 2> $O/report.err; st report $?
for round in 1; do
  timeout 60 ./sel_old --sections multi --types float,double --algorithms sampled-multi --sizes 20,22,24,26 --runs 10 --out $O/multi_old_$round.csv > $O/multi_old_$round.log 2>&1; st old_$round $?
  timeout 60 ./sel --sections multi --types float,double --algorithms sampled-multi --sizes 20,22,24,26 --runs 10 --out $O/multi_new_$round.csv > $O/multi_new_$round.log 2>&1; st new_$round $?
done
# The same build's app tests and `robust-fit select --backend cuda`.
mkdir -p /tmp/app && cp robust-fit /tmp/app/robust-fit
printf 'v\n3\n1\n2\n5\n4\n' > /tmp/v.csv; (/tmp/app/robust-fit select /tmp/v.csv -c v --median --backend cuda; /tmp/app/robust-fit select /tmp/v.csv -c v --k 1,3 --backend cuda -o json) > $O/cli_select.txt 2>&1; st cli $?
timeout 200 ./robustfit_app_tests > $O/app_tests.txt 2>&1; st app $?
for f in $O/app_tests.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure" $f | head -40) > ${f%.txt}_summary.txt; done; save
