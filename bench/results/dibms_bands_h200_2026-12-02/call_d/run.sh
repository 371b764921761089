#!/usr/bin/env bash
# Call d (2026-12-02): the float band table without the 64-bit branch where no entry needs it (kWide),
# zeros/subnormals/infinities in the 32-bit table; median phases.
N=d; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; date -u; (cd $REPO && git log -1 --format=%H; git status --short | head -20)) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 120 ./robustfit_distributed_gpu_tests > $O/dgpu.txt 2>&1; st dgpu $?
for d in uniform normal; do
  for L in 29 28; do
    timeout 90 $MPI -np 1 ./dsel --total-log2 $L --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --phases --out $O/dsel${L}_$d.csv > $O/dsel${L}_$d.log 2>&1; st dsel${L}_$d $?
  done
done
timeout 120 ncu --kernel-name regex:"band_count|placed_reduce" --launch-count 2 --section SpeedOfLight --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats ./dsel --total-log2 29 --runs 1 --methods dibms --out /tmp/x.csv > $O/ncu.txt 2>&1; st ncu $?
timeout 60 $MPI -np 1 ./robustfit_distributed_tests > $O/dist_np1.txt 2>&1; st dist_np1 $?
timeout 150 $MPI -np 2 ./robustfit_distributed_tests > $O/dist_np2.txt 2>&1; st dist_np2 $?
