tar -xJf .devpack/o.tar.xz -C /tmp; cd /tmp/o; export LD_LIBRARY_PATH=/tmp/o/libs
O=/tmp/res_o; mkdir -p $O; nvidia-smi -L > $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
timeout 100 $M -np 4 ./robustfit_distributed_gpu_tests > $O/dist_np4.txt 2>&1; echo "rc $?" >> $O/dist_np4.txt
for b in bench_distributed_lts bench_dlts_base; do
  timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./$b --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts1_$b.csv > $O/trace1_$b.txt 2>&1
  timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./$b --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts4_$b.csv > $O/trace4_$b.txt 2>&1
done
timeout 60 $M -np 1 ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts1_again.csv > /dev/null 2>&1
timeout 90 $M -np 4 ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts4_again.csv > /dev/null 2>&1
tar -czf $OUT/res_o.tgz -C /tmp res_o
