tar -xJf .devpack/y.tar.xz -C /tmp; cd /tmp/y; export LD_LIBRARY_PATH=/tmp/y/libs
R=/tmp/res_y; mkdir -p $R; nvidia-smi -L > $R/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
for i in 1 2; do for b in before after; do for d in uniform normal; do $M -np 1 ./dsel_$b --total-log2 29 --runs 7 --distribution $d --methods dibms,single-shard --phases > $R/sel_${b}_${d}_$i.txt 2>&1; done; done; done
$M -np 1 /usr/local/cuda/bin/ncu -k regex:count_kernel --launch-count 2 --section SpeedOfLight ./dsel_after --total-log2 29 --runs 1 --methods dibms > $R/ncu_count_after.txt 2>&1
timeout 150 $M -np 2 ./robustfit_distributed_gpu_tests > $R/dist_np2.txt 2>&1; echo "rc=$?" >> $R/dist_np2.txt
tar -czf $OUT/res_y.tgz -C /tmp res_y
