tar -xJf .devpack/e.tar.xz -C /tmp; cd /tmp/e; export LD_LIBRARY_PATH=/tmp/e/libs
O=/tmp/res_e; mkdir -p $O; nvidia-smi -L > $O/machine.txt; nproc >> $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
C=05946c4
step() {  # NAME LIMIT COMMAND...: skipped once 560 s have passed
  local name=$1 limit=$2; shift 2
  local left=$((560 - SECONDS)); [ $left -lt 10 ] && { echo "== $name skipped" >> $O/steps.txt; return; }
  [ $limit -gt $left ] && limit=$left
  local t0=$SECONDS; timeout "$limit" "$@" >"$O/log_$name.txt" 2>&1; local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s" >> $O/steps.txt
}
step tests_np4 120 $M -np 4 ./robustfit_distributed_gpu_tests
step tests_np2 90 $M -np 2 ./robustfit_distributed_gpu_tests
for i in 1 2; do for np in 2 4; do for d in uniform normal; do
  step sel_main_np${np}_${d}_$i 40 $M -np $np ./bench_dsel_main --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --out $O/sel_main.csv --commit 6b6a735
  step sel_new_np${np}_${d}_$i 40 $M -np $np ./bench_distributed_select_bench --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --out $O/sel_new.csv --commit $C
done; done; done
tar -czf $OUT/res_e.tgz -C /tmp res_e
step sel_single_total 40 $M -np 1 ./bench_distributed_select_bench --total-log2 30 --runs 7 --methods single-total --out $O/sel_new.csv --commit $C
for np in 4 2 1; do step lts_weak_np$np 80 $M -np $np ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi.csv --commit $C; done
for np in 4 2; do step lts_strong_np$np 50 $M -np $np ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi.csv --commit $C; done
tar -czf $OUT/res_e.tgz -C /tmp res_e
