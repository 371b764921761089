tar -xJf .devpack/b.tar.xz -C /tmp; cd /tmp/b; export LD_LIBRARY_PATH=/tmp/b/libs
R=/tmp/res_b; mkdir -p $R; nvidia-smi -L > $R/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
for i in 1 2; do ROBUSTFIT_TRACE=1 timeout 90 ./bench_lts --n 1e7 --p 10 --backend cuda --subsets 500 --mcd off --runs 5 > $R/lts1e7_mcdoff_$i.txt 2>&1; done
ROBUSTFIT_TRACE=1 timeout 90 ./bench_lts --n 1e7 --p 10 --backend cuda --subsets 500 --mcd on --runs 3 > $R/lts1e7_mcdon.txt 2>&1
timeout 120 ./bench_selection_bench --sections multi,batched --runs 5 --out $R/sel_multi_batched.csv > $R/sel_multi_batched.log 2>&1; echo "rc $?" >> $R/sel_multi_batched.log
timeout 120 ./robustfit_gpu_oom_tests > $R/oom.txt 2>&1; echo "rc $?" >> $R/oom.txt
timeout 100 $M -np 2 ./robustfit_distributed_gpu_tests > $R/dist_np2.txt 2>&1; echo "rc $?" >> $R/dist_np2.txt
tar -czf $OUT/res_b.tgz -C /tmp res_b
echo "start gpu tests at $SECONDS s" > $R/gpu_tests.txt
timeout $((585 - SECONDS)) ./robustfit_gpu_tests >> $R/gpu_tests.txt 2>&1; echo "rc $?" >> $R/gpu_tests.txt
tar -czf $OUT/res_b.tgz -C /tmp res_b
