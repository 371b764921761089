tar -xJf .devbin/a.tar.xz -C /tmp; cd /tmp/a
export LD_LIBRARY_PATH=/tmp/a/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_a; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
timeout 60 ./bench_selection_bench --sections single --sizes 20,24 --types float,double --algorithms radix,floyd-rivest,bracket,auto --runs 5 --out $O/single.csv > $O/single.log 2>&1
echo "bench rc $? at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_a.tgz -C /tmp res_a
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 440 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
while sleep 20; do tar -czf $OUT/res_a.tgz -C /tmp res_a; jobs -r | grep -q . || break; done
wait
tar -czf $OUT/res_a.tgz -C /tmp res_a
