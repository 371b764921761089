tar -xJf .devpack/d.tar.xz -C /tmp; cd /tmp/d; export LD_LIBRARY_PATH=/tmp/d/libs
R=/tmp/res_d; mkdir -p $R; nvidia-smi -L > $R/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
for i in 1 2; do for d in uniform normal; do
  timeout 60 $M -np 1 ./bench_dsel_main --total-log2 29 --runs 7 --distribution $d --methods dibms,single-shard --phases --out $R/main_${d}_$i.csv > $R/main_${d}_$i.txt 2>&1
  for g in 0 4096 16384 65536; do
  timeout 60 $M -np 1 ./bench_distributed_select_bench --total-log2 29 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --phases --gather-candidates $g --out $R/g${g}_${d}_$i.csv > $R/g${g}_${d}_$i.txt 2>&1
  done
done; done
tar -czf $OUT/res_d.tgz -C /tmp res_d
timeout 150 $M -np 1 ./robustfit_distributed_gpu_tests > $R/dist_np1.txt 2>&1; echo "rc $?" >> $R/dist_np1.txt
timeout 150 $M -np 2 ./robustfit_distributed_gpu_tests > $R/dist_np2.txt 2>&1; echo "rc $?" >> $R/dist_np2.txt
tar -czf $OUT/res_d.tgz -C /tmp res_d
