#!/usr/bin/env bash
# Call e (2026-12-02): as committed for stop 36 (band form: locate in shared memory, byte flags,
# a 16384-key sample, one block an SM): GPU tests, issue 11's report (sel + peers), phases, the whole suites.
N=e; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
mkdir -p /tmp/app && cp robust-fit /tmp/app/robust-fit
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; date -u; (cd $REPO && git log -1 --format=%H); python3 -c 'import torch, sys; print("torch", torch.__version__, sys.version.split()[0])'; python3 -c 'import cupy; print("cupy", cupy.__version__)') > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 150 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*:GpuFloydRivest*:GpuCapability*' > $O/multi_tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/multi_tests_$i.txt) &
done
wait; save
grep -q "rc 0 " $O/multi_tests_0.txt && grep -q "rc 0 " $O/multi_tests_1.txt && grep -q "rc 0 " $O/multi_tests_2.txt || { st multi_tests_failed 1; exit 0; }
st multi_tests 0
timeout 40 ./sel --sections multi-phases --sizes 24,26,28 --types float,double --runs 5 --out $O/phases.csv > $O/phases.log 2>&1; st phases $?
printf 'v\n3\n1\n2\n5\n4\n' > /tmp/v.csv; (/tmp/app/robust-fit select /tmp/v.csv -c v --median --backend cuda; /tmp/app/robust-fit select /tmp/v.csv -c v --k 1,3 --backend cuda -o json) > $O/cli_select.txt 2>&1; st cli $?
timeout 200 ./sel --sections single,multi,batched --types float,double --algorithms auto --sizes 20,22,23,24,25,26,28 --runs 5 --out $O/sel.csv > $O/sel.log 2>&1; st sel $?
timeout 60 python3 $REPO/bench/peers/selection_peers.py --out $O/peers.csv --runs 5 > $O/peers.log 2>&1; st peers $?
python3 $REPO/bench/selection_issue_report.py --bench $O/sel.csv --peers $O/peers.csv > $O/report.md 2> $O/report.err; st report $?
timeout 40 ./robustfit_distributed_gpu_tests > $O/dgpu.txt 2>&1; st dgpu $?
(timeout 200 ./robustfit_app_tests > $O/app_tests.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/app_tests.txt) &
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 200 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 15; do save; jobs -r | grep -q . || break; done
wait; save
