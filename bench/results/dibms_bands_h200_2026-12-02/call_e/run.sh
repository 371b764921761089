#!/usr/bin/env bash
# Call e (2026-12-02): the code to commit (bands by default in DIBMS, the CUDA shard's band passes,
# the gathered candidates answered by nth_element): tests, CLI under mpirun, DIBMS at one rank's 2^29 / 2^28 floats.
N=e; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; date -u; (cd $REPO && git log -1 --format=%H; git status --short | head -20); mpirun --version | head -1) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 120 ./robustfit_distributed_gpu_tests > $O/dgpu.txt 2>&1; st dgpu $?
for d in uniform normal; do
  for L in 29 28; do
    timeout 90 $MPI -np 1 ./dsel --total-log2 $L --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --phases --commit $(cd $REPO && git log -1 --format=%h)+ --out $O/dsel${L}_$d.csv > $O/dsel${L}_$d.log 2>&1; st dsel${L}_$d $?
    timeout 90 $MPI -np 1 ./dsel --total-log2 $L --runs 7 --distribution $d --methods dibms,dibms-median --band-intervals off --out $O/dsel${L}_off_$d.csv > $O/dsel${L}_off_$d.log 2>&1; st dsel${L}_off_$d $?
  done
done
python3 -c "
import random; random.seed(4)
with open('/tmp/v.csv','w') as f:
  f.write('v\n'); [f.write('%r\n' % random.gauss(0,1)) for _ in range(200001)]" 
(for np in 1 2; do $MPI -np $np ./robust-fit select /tmp/v.csv -c v --percentiles 5 --backend cuda; done; ./robust-fit select /tmp/v.csv -c v --percentiles 5 --backend cpu) > $O/cli.txt 2>&1; st cli $?
timeout 60 $MPI -np 1 ./robustfit_distributed_tests > $O/dist_np1.txt 2>&1; st dist_np1 $?
timeout 150 $MPI -np 2 ./robustfit_distributed_tests > $O/dist_np2.txt 2>&1; st dist_np2 $?
# For the next session (issue 11): where the band multiselection's one-block kernels spend their time.
timeout 150 ncu --kernel-name regex:"locate_bands|plan_bands" --launch-skip 4 --launch-count 4 --set full ./sel --sections multi --types float --algorithms sampled-multi --sizes 26 --runs 1 --out /tmp/sel.csv > $O/ncu_locate.txt 2>&1; st ncu_locate $?
