tar -xJf .devpack/h.tar.xz -C /tmp; cd /tmp/h; export LD_LIBRARY_PATH=/tmp/h/libs
O=/tmp/res_h; mkdir -p $O; nvidia-smi -L > $O/machine.txt; nproc >> $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
C=e29cdc4
step() {
  local name=$1 limit=$2; shift 2
  local left=$((540 - SECONDS)); [ $left -lt 10 ] && { echo "== $name skipped" >> $O/steps.txt; return; }
  [ $limit -gt $left ] && limit=$left
  local t0=$SECONDS; timeout "$limit" "$@" >"$O/log_$name.txt" 2>&1; local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s" >> $O/steps.txt
}
step tests_np4 120 $M -np 4 ./robustfit_distributed_gpu_tests
for np in 4 2 1; do step lts_weak_np$np 80 $M -np $np ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi.csv --commit $C; done
for np in 4 2; do step lts_strong_np$np 50 $M -np $np ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi.csv --commit $C; done
tar -czf $OUT/res_h.tgz -C /tmp res_h
for i in 1 2; do for np in 4 2; do for d in uniform normal; do
  step sel_np${np}_${d}_$i 40 $M -np $np ./bench_distributed_select_bench --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --out $O/sel.csv --commit $C
done; done; done
tar -czf $OUT/res_h.tgz -C /tmp res_h
