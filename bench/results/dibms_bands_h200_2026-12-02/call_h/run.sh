#!/usr/bin/env bash
# Call h (2026-12-02): issue 11 try: the band locate's prefix sums warp-striped (coalesced loads and stores).

# (main) and new alternating: multi-phases and the multi section, floats, 2^24-2^28.
N=h; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 150 ./robustfit_gpu_tests --gtest_filter='*Multi*:GpuCapability*:*Adversarial*' > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
wait; save
for r in 1; do
  for b in old new; do
    timeout 60 ./sel_$b --sections multi-phases --sizes 24,26,28 --types float --runs 5 --out $O/phases_${b}_$r.csv > $O/phases_${b}_$r.log 2>&1; st phases_${b}_$r $?
    timeout 90 ./sel_$b --sections multi --types float --algorithms auto --sizes 24,26,28 --runs 5 --out $O/multi_${b}_$r.csv > $O/multi_${b}_$r.log 2>&1; st multi_${b}_$r $?
  done
done
