tar -xJf .devpack/a.tar.xz -C /tmp; cd /tmp/a; export LD_LIBRARY_PATH=/tmp/a/libs
R=/tmp/res_a; mkdir -p $R; nvidia-smi -L > $R/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
for i in 1 2; do for b in bench_lts_main bench_lts_qr; do
  ROBUSTFIT_TRACE=1 timeout 60 ./$b --n 1e7 --p 10 --backend cuda --runs 3 > $R/lts1e7_${b}_$i.txt 2>&1
done; done
for i in 1 2; do for b in bench_dsel_main bench_dsel_lin; do for d in uniform normal; do
  timeout 60 $M -np 1 ./$b --total-log2 29 --runs 7 --distribution $d --methods dibms,single-shard --phases > $R/dsel_${b}_${d}_$i.txt 2>&1
done; done; done
timeout 150 ./bench_selection_bench --sections multi,batched > $R/sel_multi_batched.txt 2>&1; echo "rc $?" >> $R/sel_multi_batched.txt
tar -czf $OUT/res_a.tgz -C /tmp res_a
