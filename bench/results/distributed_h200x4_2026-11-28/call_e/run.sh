tar -xJf .devbin/e.tar.xz -C /tmp; cd /tmp/e
export LD_LIBRARY_PATH=/tmp/e/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_e; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
timeout 120 ./robustfit_gpu_tests --gtest_filter='DeviceRowFactors*:DeviceRowReductions*' > $O/gpu_factors.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/gpu_factors.txt
for np in 4 2 1; do timeout 100 $M -np $np ./robustfit_distributed_gpu_tests > $O/gpu_np$np.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/gpu_np$np.txt; done
B="--p 10 --backend cuda --runs 1 --subsets 500"
for i in 1 2 3; do for b in bench_dlts_before bench_distributed_lts; do
  c=6ffe504; [ $b = bench_distributed_lts ] && c=6ffe504+cholqr2+thp
  timeout 60 $M -np 1 ./$b --n 1e7 $B --commit $c --out $O/lts1.csv > /dev/null 2>&1
  timeout 90 $M -np 4 ./$b --per-rank 1e7 $B --commit $c --out $O/lts4.csv > /dev/null 2>&1
done; done
echo "lts done at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_distributed_lts --per-rank 1e7 $B --commit 6ffe504+cholqr2+thp --out $O/lts4_traced.csv > $O/trace4.txt 2>&1
timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 1 ./bench_distributed_lts --n 1e7 $B --commit 6ffe504+cholqr2+thp --out $O/lts1_traced.csv > $O/trace1.txt 2>&1
for np in 2 4; do timeout 90 $M -np $np ./bench_distributed_lts --per-rank 1e7 $B --commit 6ffe504+cholqr2+thp --out $O/lts_weak.csv > /dev/null 2>&1; done
for np in 2 4; do timeout 90 $M -np $np ./bench_distributed_lts --n 1e7 $B --commit 6ffe504+cholqr2+thp --out $O/lts_strong.csv > /dev/null 2>&1; done
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
xz -9 $O/trace4.txt; tar -czf $OUT/res_e.tgz -C /tmp res_e
