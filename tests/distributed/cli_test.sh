#!/usr/bin/env bash
# mpirun -np N robust-fit select: the same results as one process (printed once), --shard-files
# with an empty shard, errors from one rank named with the rank, exit codes 1 and 2, no hang.
# Usage: cli_test.sh ROBUST_FIT MPIEXEC RANKS [MPIEXEC FLAGS...]
set -uo pipefail
rf=$1 mpiexec=$2 ranks=$3
shift 3
mpi() { timeout 60 "$mpiexec" "${flags[@]}" -np "$ranks" "$rf" "$@"; }
flags=("$@")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$rf" generate --scenario clean --n 30000 --p 2 --seed 4 --output "$dir/g.csv" >/dev/null 2>&1 || fail "generate"
values() { grep -E '^ +[0-9]+  ' "$1"; }  # the result rows of the table output

"$rf" select "$dir/g.csv" --column y --percentiles 101 >"$dir/one.txt" || fail "one process"
mpi select "$dir/g.csv" --column y --percentiles 101 >"$dir/many.txt" || fail "mpirun select"
[ "$(values "$dir/one.txt")" = "$(values "$dir/many.txt")" ] || fail "DIBMS differs from one process"
[ "$(grep -c '^column y' "$dir/many.txt")" = 1 ] || fail "output not printed once"
grep -q "$ranks ranks" "$dir/many.txt" || fail "no rank count in the header"

mpi select "$dir/g.csv" --column y --median --algorithm cutting-plane >"$dir/cp.txt" || fail "cutting plane"
"$rf" select "$dir/g.csv" --column y --median >"$dir/one_median.txt"
[ "$(values "$dir/one_median.txt")" = "$(values "$dir/cp.txt")" ] || fail "cutting plane differs from one process"

# --backend cuda: one GPU per rank where the host has GPUs (the same values as one process),
# else exit 2 with the reason said once.
if "$rf" select "$dir/g.csv" --column y --median --backend cuda >/dev/null 2>&1; then
  mpi select "$dir/g.csv" --column y --percentiles 101 --backend cuda >"$dir/gpu.txt" || fail "mpirun select --backend cuda"
  [ "$(values "$dir/one.txt")" = "$(values "$dir/gpu.txt")" ] || fail "DIBMS on GPUs differs from one process"
  grep -q "backend cuda" "$dir/gpu.txt" || fail "--backend cuda: not on the GPU"
  mpi select "$dir/g.csv" --column y --median --algorithm cutting-plane --backend cuda >"$dir/gpu_cp.txt" || fail "cutting plane on GPUs"
  [ "$(values "$dir/one_median.txt")" = "$(values "$dir/gpu_cp.txt")" ] || fail "cutting plane on GPUs differs from one process"
else
  mpi select "$dir/g.csv" --column y --median --backend cuda >/dev/null 2>"$dir/err_gpu.txt"
  code=$?
  [ $code = 2 ] || fail "--backend cuda without a GPU: exit $code"
  [ "$(grep -c 'robust-fit: error: --backend cuda: ' "$dir/err_gpu.txt")" = 1 ] || fail "--backend cuda without a GPU: $(cat "$dir/err_gpu.txt")"
fi

# One file per rank, the last one with a header only.
files=()
for ((r = 0; r < ranks; r++)); do
  f="$dir/part$r.csv"
  head -1 "$dir/g.csv" >"$f"
  [ $r -lt $((ranks - 1)) ] && sed -n "$((2 + r * 100)),$((101 + r * 100))p" "$dir/g.csv" >>"$f"
  files+=("$f")
done
list=$(IFS=,; echo "${files[*]}")
"$rf" select --shard-files "$list" --column y --percentiles 11 >"$dir/files_one.txt" || fail "shard files, one process"
mpi select --shard-files "$list" --column y --percentiles 11 >"$dir/files_many.txt" || fail "shard files under mpirun"
[ "$(values "$dir/files_one.txt")" = "$(values "$dir/files_many.txt")" ] || fail "shard files differ"

# A bad line in the last rank's part: exit 1, the rank and the file line named, once.
sed '29990s/.*/1,2/' "$dir/g.csv" >"$dir/bad.csv"
mpi select "$dir/bad.csv" --column y --median >/dev/null 2>"$dir/err.txt"
code=$?
[ $code = 1 ] || fail "bad line: exit $code"
grep -q "robust-fit: error: rank $((ranks - 1)): .*bad.csv:29990: expected 3 fields" "$dir/err.txt" || fail "bad line: $(cat "$dir/err.txt")"
[ "$(grep -c 'robust-fit: error' "$dir/err.txt")" = 1 ] || fail "error printed more than once"

# A command-line problem seen by every rank: exit 2, said once without a rank.
mpi select "$dir/g.csv" --column y --k 30001 >/dev/null 2>"$dir/err2.txt"
code=$?
[ $code = 2 ] || fail "k out of range: exit $code"
[ "$(grep -c 'robust-fit: error: --k: rank 30001 is out of range' "$dir/err2.txt")" = 1 ] || fail "k out of range: $(cat "$dir/err2.txt")"
echo "ok"
