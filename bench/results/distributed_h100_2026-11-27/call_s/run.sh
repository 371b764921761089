tar -xJf .devpack/s.tar.xz -C /tmp; cd /tmp/s; export LD_LIBRARY_PATH=/tmp/s/libs
O=/tmp/res_s; mkdir -p $O; nvidia-smi -L > $O/machine.txt
(cat /proc/sys/kernel/yama/ptrace_scope; ompi_info --param btl vader --level 9 | grep -i single_copy; ldd --version | head -1) > $O/diag.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 100 $M -np 4 ./robustfit_distributed_gpu_tests > $O/dist_gpu_np4.txt 2>&1; echo "rc $?" >> $O/dist_gpu_np4.txt
timeout 100 $M -np 4 ./robustfit_distributed_tests --gtest_filter='Backends/*cuda*' > $O/dist_np4.txt 2>&1; echo "rc $?" >> $O/dist_np4.txt
B="--p 10 --backend cuda --runs 1 --subsets 500"
for i in 1 2; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./bench_distributed_lts --n 1e7 $B --out $O/lts1.csv > $O/trace1_$i.txt 2>&1
  timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_distributed_lts --per-rank 1e7 $B --out $O/lts4.csv > $O/trace4_$i.txt 2>&1
  timeout 90 $M -np 4 ./bench_dlts_conc --per-rank 1e7 $B --out $O/lts4_conc.csv > /dev/null 2>&1
  timeout 60 $M -x GLIBC_TUNABLES=glibc.malloc.hugetlb=1 -x ROBUSTFIT_TRACE=1 -np 1 ./bench_distributed_lts --n 1e7 $B --out $O/lts1_thp.csv > $O/trace1_thp_$i.txt 2>&1
  timeout 90 $M -x GLIBC_TUNABLES=glibc.malloc.hugetlb=1 -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_distributed_lts --per-rank 1e7 $B --out $O/lts4_thp.csv > $O/trace4_thp_$i.txt 2>&1
  timeout 90 $M --mca btl_vader_single_copy_mechanism cma -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_distributed_lts --per-rank 1e7 $B --out $O/lts4_cma.csv > $O/trace4_cma_$i.txt 2>&1
done
tar -czf $OUT/res_s.tgz -C /tmp res_s
