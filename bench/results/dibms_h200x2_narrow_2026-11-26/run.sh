tar -xJf .devpack/k.tar.xz -C /tmp; cd /tmp/k; export LD_LIBRARY_PATH=/tmp/k/libs
R=/tmp/res_k; mkdir -p $R; nvidia-smi -L > $R/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
for i in 1 2; do for b in dibms_bench_main dibms_bench_newest; do for d in uniform normal; do $M -np 2 ./$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard > $R/np2_${b}_${d}_$i.txt 2>&1; done; done; done
tar -czf $OUT/res_k.tgz -C /tmp res_k
