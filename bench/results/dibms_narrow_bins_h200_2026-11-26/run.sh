tar -xJf .devpack/j.tar.xz -C /tmp; cd /tmp/j; export LD_LIBRARY_PATH=/tmp/j/libs
R=/tmp/res_j; mkdir -p $R; nvidia-smi -L > $R/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
timeout 200 $M -np 1 ./robustfit_distributed_gpu_tests > $R/dist_np1.txt 2>&1; echo "rc=$?" >> $R/dist_np1.txt
for i in 1 2; do for b in dibms_bench_new bench_distributed_select_bench; do for d in uniform normal; do $M -np 1 ./$b --total-log2 29 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --phases > $R/sel_${b}_${d}_$i.txt 2>&1; done; done; done
timeout 200 $M -np 2 ./robustfit_distributed_gpu_tests > $R/dist_np2.txt 2>&1; echo "rc=$?" >> $R/dist_np2.txt
tar -czf $OUT/res_j.tgz -C /tmp res_j
