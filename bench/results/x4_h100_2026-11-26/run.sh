#!/bin/bash
# Issue 14 on a 4-GPU host: the GPU-rank tests at 4 ranks, DIBMS over 1/2/4 GPUs, LTS strong and
# weak scaling over 1/2/4 GPUs; and the CPU engine's C-step scheduling before/after on this many-core host.
set -u
D=$(cd "$(dirname "$0")" && pwd); O=${OUT:-/tmp/out}; mkdir -p "$O"; cd "$D"
export NCCL_NVLS_ENABLE=0
M="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0"
C=a2dcc01
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
step() {  # NAME LIMIT COMMAND...: skipped once 400 s have passed
  local name=$1 limit=$2; shift 2
  local left=$((400 - SECONDS)); [ $left -lt 10 ] && { echo "== $name skipped"; return; }
  [ $limit -gt $left ] && limit=$left
  local t0=$SECONDS; timeout "$limit" "$@" >"$O/log_$name.txt" 2>&1; local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s"; grep -v '^\s*$' "$O/log_$name.txt" | tail -n "${TAIL:-3}"
}
TAIL=4 step gpu_ranks_np4 90 $M -np 4 ./robustfit_distributed_gpu_tests
for np in 4 2 1; do TAIL=1 step select_np$np 60 $M -np $np ./bench_distributed_select_bench --total-log2 30 --runs 7 --methods dibms,dibms-median,single-shard,single-total --out $O/dist_select.csv --commit $C; done
TAIL=1 step gather_sort_np4 40 $M -np 4 ./bench_distributed_select_bench --total-log2 30 --runs 2 --methods gather-sort --out $O/dist_select.csv --commit $C
for np in 4 2 1; do TAIL=1 step lts_weak_np$np 70 $M -np $np ./bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi.csv --commit $C; done
TAIL=1 step lts_strong_np4 40 $M -np 4 ./bench_distributed_lts --n 1e7 --p 10 --backend cuda --runs 1 --subsets 500 --out $O/lts_mpi.csv --commit $C
for b in bench_lts_before bench_lts; do TAIL=1 step cpu_$b 40 ./$b --n 1e5 --p 5 --backend cpu --runs 3 --mcd off; done
