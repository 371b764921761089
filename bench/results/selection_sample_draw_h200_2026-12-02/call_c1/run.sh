#!/usr/bin/env bash
# Call c1 (2026-12-02): the band form's locate in shared memory and byte flags in its compaction:
# tests of the touched code, phases, multi rows (byte flags against bit words in the same run).
N=c; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_c1; mkdir -p $O; (nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; date -u; (cd $REPO && git log -1 --format=%H)) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_c1.tgz -C /tmp res_c1; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 150 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*:GpuFloydRivest*:GpuCapability*' > $O/multi_tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/multi_tests_$i.txt) &
done
wait; save
st multi_tests 0
timeout 40 ./sel --sections multi-phases --sizes 24,26,28 --types float,double --runs 5 --out $O/phases.csv > $O/phases.log 2>&1; st phases $?
timeout 150 ./sel --sections multi --algorithms sampled-multi --sizes 24,26,28 --types float,double --runs 5 --out $O/multi.csv > $O/multi.log 2>&1; st multi $?
