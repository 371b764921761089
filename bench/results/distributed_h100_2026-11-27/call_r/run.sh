tar -xJf .devpack/r.tar.xz -C /tmp; cd /tmp/r; export LD_LIBRARY_PATH=/tmp/r/libs
O=/tmp/res_r; mkdir -p $O; nvidia-smi -L > $O/machine.txt
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag > $O/thp.txt 2>&1; nproc >> $O/thp.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 100 $M -np 4 ./robustfit_distributed_gpu_tests > $O/dist_gpu_np4.txt 2>&1; echo "rc $?" >> $O/dist_gpu_np4.txt
timeout 100 $M -np 4 ./robustfit_distributed_tests --gtest_filter='Backends/*cuda*' > $O/dist_np4.txt 2>&1; echo "rc $?" >> $O/dist_np4.txt
for i in 1 2; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts1.csv > $O/trace1_$i.txt 2>&1
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 taskset -c 0-15 ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts1_16cores.csv > $O/trace1c_$i.txt 2>&1
  timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts4.csv > $O/trace4_$i.txt 2>&1
  timeout 90 $M -np 4 ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts4_strong.csv > /dev/null 2>&1
  timeout 90 $M -np 2 ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts2_strong.csv > /dev/null 2>&1
  timeout 90 $M -np 2 ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts2.csv > /dev/null 2>&1
done
timeout 90 $M -np 4 ./bench_dlts_base --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts4_base.csv > /dev/null 2>&1
timeout 60 $M -np 1 ./bench_dlts_base --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts1_base.csv > /dev/null 2>&1
tar -czf $OUT/res_r.tgz -C /tmp res_r
