tar -xJf .devpack/u.tar.xz -C /tmp; cd /tmp/u; export LD_LIBRARY_PATH=/tmp/u/libs
O=/tmp/res_u; mkdir -p $O; nvidia-smi -L > $O/machine.txt; nproc >> $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
for np in 4 2 1; do timeout 100 $M -np $np ./robustfit_distributed_gpu_tests > $O/dist_gpu_np$np.txt 2>&1; echo "rc $?" >> $O/dist_gpu_np$np.txt; done
timeout 100 $M -np 4 ./robustfit_distributed_tests > $O/dist_np4.txt 2>&1; echo "rc $?" >> $O/dist_np4.txt
B="--p 10 --backend cuda --runs 1 --subsets 500"
T="-x GLIBC_TUNABLES=glibc.malloc.hugetlb=1"
for i in 1 2; do
  for b in bench_distributed_lts bench_dlts_dc61148; do
    timeout 60 $M -x ROBUSTFIT_TRACE=1 -np 1 ./$b --n 1e7 $B --out $O/lts1_$b.csv > $O/trace1_${b}_$i.txt 2>&1
    timeout 90 $M -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./$b --per-rank 1e7 $B --out $O/lts4_$b.csv > $O/trace4_${b}_$i.txt 2>&1
  done
  timeout 60 $M $T -np 1 ./bench_distributed_lts --n 1e7 $B --out $O/lts1_thp.csv > /dev/null 2>&1
  timeout 90 $M $T -x ROBUSTFIT_TRACE=1 --tag-output -np 4 ./bench_distributed_lts --per-rank 1e7 $B --out $O/lts4_thp.csv > $O/trace4_thp_$i.txt 2>&1
  timeout 90 $M $T -np 2 ./bench_distributed_lts --per-rank 1e7 $B --out $O/lts2_thp.csv > /dev/null 2>&1
  timeout 90 $M $T -np 4 ./bench_distributed_lts --n 1e7 $B --out $O/lts4s_thp.csv > /dev/null 2>&1
  timeout 90 $M $T -np 2 ./bench_distributed_lts --n 1e7 $B --out $O/lts2s_thp.csv > /dev/null 2>&1
done
for np in 2 4; do for b in bench_dsel_4a0e bench_distributed_select_bench; do for d in uniform normal; do
  timeout 60 $M -np $np ./$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --out $O/dsel_${np}_${b}_$d.csv > $O/dsel_${np}_${b}_${d}.txt 2>&1
done; done; done
tar -czf $OUT/res_u.tgz -C /tmp res_u
