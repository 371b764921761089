#!/usr/bin/env bash
# Call a (2026-12-02, session 2): the CUDA shard's band count and placed reduce (uncommitted on 264f68b):
# distributed GPU tests, distributed tests at np 1 and 2, the pending selection checks (probe, tests),
# DIBMS at one rank's 2^29 floats: pivots vs bands, with phases.
N=a; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; date -u; (cd $REPO && git log -1 --format=%H; git status --short | head -20); mpirun --version | head -1) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 120 ./robustfit_distributed_gpu_tests > $O/dgpu.txt 2>&1; st dgpu $?
timeout 60 $MPI -np 1 ./robustfit_distributed_tests --gtest_filter='*Band*:*Dibms*' > $O/dist_np1.txt 2>&1; st dist_np1 $?
for d in uniform normal; do
  timeout 90 $MPI -np 1 ./dsel --total-log2 29 --runs 7 --distribution $d --methods dibms,dibms-bands,single-shard --phases --out $O/dsel_pivots_$d.csv > $O/dsel_pivots_$d.log 2>&1; st dsel_pivots_$d $?
  timeout 90 $MPI -np 1 ./dsel --total-log2 29 --runs 7 --distribution $d --methods dibms,dibms-median --band-intervals on --phases --out $O/dsel_bands_$d.csv > $O/dsel_bands_$d.log 2>&1; st dsel_bands_$d $?
done
timeout 60 ./probe --log-n 20,28 --runs 10 > $O/probe.txt 2>&1; st probe $?
timeout 120 $MPI -np 2 ./robustfit_distributed_tests > $O/dist_np2.txt 2>&1; st dist_np2 $?
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 150 ./robustfit_gpu_tests --gtest_filter='GpuSampledMulti*:GpuFloydRivest*' > $O/sel_tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/sel_tests_$i.txt) &
done
wait; save
