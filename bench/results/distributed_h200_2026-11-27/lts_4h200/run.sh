tar -xJf .devpack/i.tar.xz -C /tmp; cd /tmp/i; export LD_LIBRARY_PATH=/tmp/i/libs
O=/tmp/res_i; mkdir -p $O; nvidia-smi -L > $O/machine.txt; nproc >> $O/machine.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
C=$(cat .devpack/commit 2>/dev/null || echo unknown)
step() {
  local name=$1 limit=$2; shift 2
  local left=$((500 - SECONDS)); [ $left -lt 10 ] && { echo "== $name skipped" >> $O/steps.txt; return; }
  [ $limit -gt $left ] && limit=$left
  local t0=$SECONDS; timeout "$limit" "$@" >"$O/log_$name.txt" 2>&1; local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s" >> $O/steps.txt
}
for i in 1 2; do
for np in 4 2 1; do step lts_weak_np${np}_$i 80 $M -np $np ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi.csv --commit $C; done
for np in 4 2; do step lts_strong_np${np}_$i 50 $M -np $np ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi.csv --commit $C; done
done
step lts_weak_np4_default 80 mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH -np 4 ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi_default_binding.csv --commit $C
tar -czf $OUT/res_i.tgz -C /tmp res_i
step tests_np4 120 $M -np 4 ./robustfit_distributed_gpu_tests
tar -czf $OUT/res_i.tgz -C /tmp res_i
