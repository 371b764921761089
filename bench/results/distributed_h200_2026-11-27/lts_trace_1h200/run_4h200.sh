tar -xJf .devpack/i.tar.xz -C /tmp; cd /tmp/i; export LD_LIBRARY_PATH=/tmp/i/libs
O=/tmp/res_i2; mkdir -p $O
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH -x ROBUSTFIT_TRACE=1"
timeout 80 $M -np 4 ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts.csv > $O/trace_np4.txt 2>&1
timeout 80 $M -np 1 ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts.csv > $O/trace_np1.txt 2>&1
grep -v "trace converge" $O/trace_np4.txt > $O/t4 && mv $O/t4 $O/trace_np4.txt; grep -v "trace converge" $O/trace_np1.txt > $O/t1 && mv $O/t1 $O/trace_np1.txt
tar -czf $OUT/res_i2.tgz -C /tmp res_i2
