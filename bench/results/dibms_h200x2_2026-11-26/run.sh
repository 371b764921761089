tar -xJf .devpack/i.tar.xz -C /tmp; cd /tmp/i; export LD_LIBRARY_PATH=/tmp/i/libs
R=/tmp/res_i; mkdir -p $R; nvidia-smi -L > $R/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
for i in 1 2; do for b in dibms_bench_main dibms_bench_new; do for d in uniform normal; do $M -np 2 ./$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard > $R/np2_${b}_${d}_$i.txt 2>&1; done; done; done
timeout 200 $M -np 2 ./robustfit_distributed_gpu_tests > $R/dist_np2.txt 2>&1; echo "rc=$?" >> $R/dist_np2.txt
tar -czf $OUT/res_i.tgz -C /tmp res_i
