tar -xJf .devbin/a.tar.xz -C /tmp; cd /tmp/a
export LD_LIBRARY_PATH=/tmp/a/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_a; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
# the whole GPU suite, in 4 shards, one GPU each
for i in 0 1 2 3; do
  (CUDA_VISIBLE_DEVICES=$i GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 240 ./robustfit_gpu_tests > $O/gpu_tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/gpu_tests_$i.txt) &
done
wait
for np in 1 2 4; do timeout 100 $M -np $np ./robustfit_distributed_gpu_tests > $O/dgpu_np$np.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/dgpu_np$np.txt; done
echo "tests done at $(($(date +%s)-T0)) s" >> $O/machine.txt
for r in 1 2 3; do for b in 60f8 new; do for d in uniform normal; do
  timeout 60 $M -np 4 ./dsel_$b --total-log2 30 --runs 7 --distribution $d --methods dibms,single-shard --commit $b --out $O/dsel.csv > /dev/null 2>&1
done; done; done
echo "dsel done at $(($(date +%s)-T0)) s" >> $O/machine.txt
B="--p 10 --backend cuda --runs 1 --subsets 500"
for r in 1 2; do for b in 60f8 new; do for np in 1 4; do
  timeout 90 $M -np $np ./dlts_$b --per-rank 1e7 $B --commit $b --out $O/lts_weak.csv > /dev/null 2>&1
done; done; done
echo "lts done at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 60 $M -np 4 --tag-output -x ROBUSTFIT_TRACE=1 ./dsel_new --total-log2 30 --runs 3 --distribution uniform --methods dibms --out $O/dsel_traced.csv > $O/trace_dsel4.txt 2>&1
timeout 60 $M -np 1 --tag-output -x ROBUSTFIT_TRACE=1 ./dsel_new --total-log2 28 --runs 3 --distribution uniform --methods dibms,single-shard --out $O/dsel_traced.csv > $O/trace_dsel1.txt 2>&1
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_a.tgz -C /tmp res_a
