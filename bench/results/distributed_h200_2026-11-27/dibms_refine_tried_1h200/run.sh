tar -xJf .devpack/c.tar.xz -C /tmp; cd /tmp/c; export LD_LIBRARY_PATH=/tmp/c/libs
R=/tmp/res_c; mkdir -p $R; nvidia-smi -L > $R/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
for i in 1 2; do for d in uniform normal; do
  timeout 60 $M -np 1 ./bench_dsel_main --total-log2 29 --runs 7 --distribution $d --methods dibms,single-shard --phases --out $R/main_${d}_$i.csv > $R/main_${d}_$i.txt 2>&1
  for rb in 8192 16384 65536 262144; do
  timeout 60 $M -np 1 ./bench_distributed_select_bench --total-log2 29 --runs 7 --distribution $d --methods dibms,single-shard --phases --refine-buckets $rb --out $R/rb${rb}_${d}_$i.csv > $R/rb${rb}_${d}_$i.txt 2>&1
  done
done; done
tar -czf $OUT/res_c.tgz -C /tmp res_c
timeout 150 $M -np 1 ./robustfit_distributed_gpu_tests > $R/dist_np1.txt 2>&1; echo "rc $?" >> $R/dist_np1.txt
timeout 150 $M -np 2 ./robustfit_distributed_gpu_tests > $R/dist_np2.txt 2>&1; echo "rc $?" >> $R/dist_np2.txt
tar -czf $OUT/res_c.tgz -C /tmp res_c
