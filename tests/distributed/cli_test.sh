#!/usr/bin/env bash
# mpirun -np N robust-fit select, fit and mcd: the same results as one process (printed once),
# --shard-files with an empty shard (and, for fit, a shard of one row), errors from one rank named
# with the rank, exit codes 1 and 2, no hang; fit --method lms as one process; fit's robust
# distances and mcd (FAST-MCD across the ranks) as one process. ROBUSTFIT_MPI_LARGE=1 adds fit on
# n = 10^5 (~15 s).
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
# fit (LTS with its robust distances, LS, LMS): the JSON of one process and of mpirun agree - numbers
# to 1e-9 relative, everything else (outlier rows, the h-subset, the outlier map, counts) exactly -
# but for the timings, the backend and the ranks and bytes that mpirun adds.
json_body() { sed -e '/"timings_s"/,$d' -e '/"backend"\|"selection"\|"ranks"\|"bytes_communicated"/d' "$1"; }
same_json() {
  paste -d '\n' <(json_body "$1") <(json_body "$2") | awk '
    function num(s) { sub(/^[^:]*: */, "", s); sub(/,$/, "", s); return s + 0 }
    NR % 2 == 1 { a = $0; next }
    a != $0 {
      x = num(a); y = num($0); d = x - y; m = x < 0 ? -x : x
      if (d < 0) d = -d
      if (m < 1) m = 1
      if (d > 1e-9 * m) { print "differs: " a " | " $0; bad = 1 }
    }
    END { if (NR % 2 != 0) { print "different lengths"; bad = 1 }; exit bad }'
}
fit_same() {  # fit_same NAME ONE_PROCESS_ARGS -- MPIRUN_ARGS
  local name=$1
  shift
  local one=() many=()
  while [ "$1" != -- ]; do one+=("$1"); shift; done
  shift
  many=("$@")
  "$rf" fit "${one[@]}" -o json -q >"$dir/fit_one.json" 2>"$dir/fit_err_one.txt" ||
    fail "fit $name: one process: $(cat "$dir/fit_err_one.txt")"
  mpi fit "${many[@]}" -o json -q >"$dir/fit_many.json" 2>"$dir/fit_err.txt" || fail "fit $name: mpirun: $(cat "$dir/fit_err.txt")"
  same_json "$dir/fit_one.json" "$dir/fit_many.json" >"$dir/fit_diff.txt" || fail "fit $name differs: $(head -5 "$dir/fit_diff.txt")"
  grep -q "\"ranks\": $ranks" "$dir/fit_many.json" || fail "fit $name: no rank count"
}
datasets=$(cd "$(dirname "$0")/../../data/datasets" && pwd)
fit_same stackloss "$datasets/stackloss.csv" -y stack.loss -- "$datasets/stackloss.csv" -y stack.loss
fit_same hbk "$datasets/hbk.csv" -y Y --subsets 1000 --seed 3 -- "$datasets/hbk.csv" -y Y --subsets 1000 --seed 3
grep -q '"outlier_map": \[' "$dir/fit_many.json" || fail "fit hbk: no robust distances"
fit_same hbk-no-mcd "$datasets/hbk.csv" -y Y --subsets 300 --no-mcd -- "$datasets/hbk.csv" -y Y --subsets 300 --no-mcd
grep -q '"robust_distances": null' "$dir/fit_many.json" || fail "fit --no-mcd: robust distances computed"
fit_same hbk-ls "$datasets/hbk.csv" -y Y --method ls -- "$datasets/hbk.csv" -y Y --method ls
fit_same starsCYG "$datasets/starsCYG.csv" -y log.light --no-intercept --subsets 500 -- \
  "$datasets/starsCYG.csv" -y log.light --no-intercept --subsets 500
# Above 20000 rows: nested subsamples, deterministic starts from the strided subsample.
"$rf" generate --scenario mixed --n 25000 --p 2 --contamination 0.2 --seed 6 --output "$dir/f.csv" >/dev/null 2>&1 || fail "generate f"
fit_same n25000 "$dir/f.csv" -y y -- "$dir/f.csv" -y y
# --drop-missing with missing cells in the first, a middle and the last part: the same rows
# dropped, the outliers named by the same data rows.
sed -e '100s/^[^,]*,/NA,/' -e '12000s/,[^,]*$/,/' -e '24000s/^[^,]*,/,/' "$dir/f.csv" >"$dir/fmiss.csv"
fit_same drop-missing "$dir/fmiss.csv" -y y --drop-missing --subsets 50 -- "$dir/fmiss.csv" -y y --drop-missing --subsets 50
grep -q '"dropped_rows": 3' "$dir/fit_many.json" || fail "drop-missing: dropped rows"
if [ "${ROBUSTFIT_MPI_LARGE:-0}" = 1 ]; then
  "$rf" generate --scenario vertical --n 100000 --p 3 --contamination 0.2 --seed 7 --output "$dir/l.csv" >/dev/null 2>&1 || fail "generate l"
  fit_same n100000 "$dir/l.csv" -y y --subsets 50 -- "$dir/l.csv" -y y --subsets 50
fi

# fit --backend cuda: LTS's passes on each rank's GPU where the host has GPUs (the JSON of one
# process on the CPU, the backend mpi+cuda), else exit 2 with the reason said once; LMS refuses it.
if "$rf" select "$dir/g.csv" --column y --median --backend cuda >/dev/null 2>&1; then
  fit_same hbk-cuda "$datasets/hbk.csv" -y Y --subsets 500 --seed 3 --backend cpu -- "$datasets/hbk.csv" -y Y --subsets 500 --seed 3 --backend cuda
  grep -q '"backend": "mpi+cuda"' "$dir/fit_many.json" || fail "fit --backend cuda: not on the GPUs"
  fit_same n25000-cuda "$dir/f.csv" -y y --subsets 50 --backend cpu -- "$dir/f.csv" -y y --subsets 50 --backend cuda
  mpi fit "$datasets/stackloss.csv" -y stack.loss --subsets 200 --backend cuda -q >"$dir/t_gpu.txt" || fail "fit table on GPUs"
  grep -q "backend mpi+cuda, $ranks ranks" "$dir/t_gpu.txt" || fail "fit table on GPUs: header"
else
  mpi fit "$datasets/hbk.csv" -y Y --backend cuda >/dev/null 2>"$dir/err_fit_gpu.txt"
  code=$?
  [ $code = 2 ] || fail "fit --backend cuda without a GPU: exit $code"
  [ "$(grep -c 'robust-fit: error: --backend cuda: ' "$dir/err_fit_gpu.txt")" = 1 ] ||
    fail "fit --backend cuda without a GPU: $(cat "$dir/err_fit_gpu.txt")"
fi
mpi fit "$datasets/hbk.csv" -y Y --method lms --backend cuda >/dev/null 2>"$dir/err_lms_gpu.txt"
[ $? = 2 ] || fail "fit --method lms --backend cuda: exit code"
[ "$(grep -c 'robust-fit: error: --backend cuda: under mpirun LMS runs on the ranks' "$dir/err_lms_gpu.txt")" = 1 ] ||
  fail "fit --method lms --backend cuda: $(cat "$dir/err_lms_gpu.txt")"

# The table: printed once, as one process prints it (the outlier map too) but for the header's
# ranks and bytes.
"$rf" fit "$datasets/stackloss.csv" -y stack.loss -q >"$dir/t_one.txt"
mpi fit "$datasets/stackloss.csv" -y stack.loss -q >"$dir/t_many.txt" 2>"$dir/t_err.txt" || fail "fit table"
[ "$(grep -c '^Least Trimmed Squares' "$dir/t_many.txt")" = 1 ] || fail "fit table not printed once"
grep -q "backend mpi+cpu, $ranks ranks, [0-9]* bytes communicated by rank 0" "$dir/t_many.txt" || fail "fit table header"
diff <(grep -v '^h = ' "$dir/t_one.txt") <(grep -v '^h = ' "$dir/t_many.txt") || fail "fit table differs"
[ "$(grep -c '^outlier map' "$dir/t_many.txt")" = 1 ] || fail "fit table: no outlier map"
[ ! -s "$dir/t_err.txt" ] || fail "fit table: stderr $(cat "$dir/t_err.txt")"

# One file per rank: the first with one row, the second with none (with 3+ ranks), the last the rest.
files=()
for ((r = 0; r < ranks; r++)); do
  f="$dir/fit_part$r.csv"
  head -1 "$datasets/stackloss.csv" >"$f"
  if [ $r = 0 ]; then sed -n 2p "$datasets/stackloss.csv" >>"$f"
  elif [ $r = $((ranks - 1)) ]; then sed -n '3,$p' "$datasets/stackloss.csv" >>"$f"; fi
  files+=("$f")
done
list=$(IFS=,; echo "${files[*]}")
fit_same shard-files "$datasets/stackloss.csv" -y stack.loss --subsets 300 -- --shard-files "$list" -y stack.loss --subsets 300

# --residuals: the ranks' rows in one file, the one-process file (numbers to 1e-9; with the robust
# distances and the outlier map's class, as one process writes them).
"$rf" fit "$dir/f.csv" -y y --subsets 50 -q --residuals "$dir/r_one.csv" >/dev/null || fail "residuals one"
mpi fit "$dir/f.csv" -y y --subsets 50 -q --residuals "$dir/r_many.csv" >/dev/null 2>&1 || fail "residuals mpirun"
[ "$(wc -l <"$dir/r_many.csv")" = 25001 ] || fail "residuals: $(wc -l <"$dir/r_many.csv") lines"
[ "$(head -1 "$dir/r_many.csv")" = "$(head -1 "$dir/r_one.csv")" ] || fail "residuals header: $(head -1 "$dir/r_many.csv")"
paste -d , "$dir/r_one.csv" "$dir/r_many.csv" | awk -F , '
  NR == 1 { next }
  { if ($8 != $16) { print "class, line " NR ": " $0; exit 1 }
    for (c = 1; c <= 7; c++) { x = $c; y = $(c + 8); d = x - y; m = x < 0 ? -x : x
      if (d < 0) d = -d
      if (m < 1) m = 1
      if (d > 1e-9 * m) { print "line " NR ": " $0; exit 1 } } }' || fail "residuals differ"

# A bad cell in the last rank's part: exit 1, the rank and the file line named, once.
sed '25000s/^[^,]*,/oops,/' "$dir/f.csv" >"$dir/fbad.csv"
mpi fit "$dir/fbad.csv" -y y >/dev/null 2>"$dir/err3.txt"
code=$?
[ $code = 1 ] || fail "fit bad cell: exit $code"
grep -q "robust-fit: error: rank $((ranks - 1)): .*fbad.csv.*25000" "$dir/err3.txt" || fail "fit bad cell: $(cat "$dir/err3.txt")"
[ "$(grep -c 'robust-fit: error' "$dir/err3.txt")" = 1 ] || fail "fit error printed more than once"

# LMS: the same fit as one process (the exact intercept across ranks, the refinement, the finish).
fit_same lms-stackloss "$datasets/stackloss.csv" -y stack.loss --method lms -- "$datasets/stackloss.csv" -y stack.loss --method lms
fit_same lms-hbk "$datasets/hbk.csv" -y Y --method lms --subsets 300 --seed 3 -- "$datasets/hbk.csv" -y Y --method lms --subsets 300 --seed 3
fit_same lms-starsCYG "$datasets/starsCYG.csv" -y log.light --method lms --no-intercept -- \
  "$datasets/starsCYG.csv" -y log.light --method lms --no-intercept
fit_same lms-shard-files "$datasets/stackloss.csv" -y stack.loss --method lms --subsets 300 -- \
  --shard-files "$list" -y stack.loss --method lms --subsets 300
head -5001 "$dir/f.csv" >"$dir/f5000.csv"
fit_same lms-n5000 "$dir/f5000.csv" -y y --method lms --subsets 200 --seed 2 -- "$dir/f5000.csv" -y y --method lms --subsets 200 --seed 2

# mcd: the JSON of one process and of mpirun agree as fit's do (center, covariances, log det and
# distances to 1e-9; flagged rows, the best subset and the data rows exactly).
mcd_same_as() {  # mcd_same_as NAME ONE_PROCESS_ARGS -- MPIRUN_ARGS
  local name=$1
  shift
  local one=()
  while [ "$1" != -- ]; do one+=("$1"); shift; done
  shift
  "$rf" mcd "${one[@]}" -o json -q >"$dir/mcd_one.json" 2>"$dir/mcd_err_one.txt" || fail "mcd $name: one process: $(cat "$dir/mcd_err_one.txt")"
  mpi mcd "$@" -o json -q >"$dir/mcd_many.json" 2>"$dir/mcd_err.txt" || fail "mcd $name: mpirun: $(cat "$dir/mcd_err.txt")"
  same_json "$dir/mcd_one.json" "$dir/mcd_many.json" >"$dir/mcd_diff.txt" || fail "mcd $name differs: $(head -5 "$dir/mcd_diff.txt")"
  grep -q "\"ranks\": $ranks" "$dir/mcd_many.json" || fail "mcd $name: no rank count"
  grep -q '"backend": "mpi+cpu"' "$dir/mcd_many.json" || fail "mcd $name: backend"
}
mcd_same() { mcd_same_as "$1" "${@:2}" -- "${@:2}"; }  # mcd_same NAME ARGS...
mcd_same hbk "$datasets/hbk.csv" --seed 1
# One file per rank (stackloss: a rank of one row, one of none with 3+ ranks, the rest last).
mcd_same_as shard-files "$datasets/stackloss.csv" --seed 2 -- --shard-files "$list" --seed 2
grep -q "\"data\": \"$list\"" "$dir/mcd_many.json" || fail "mcd shard files: the files not named"
mpi mcd --shard-files "$list,$list" >/dev/null 2>"$dir/err7.txt"
[ $? = 2 ] || fail "mcd shard files per rank: exit code"
[ "$(grep -c "robust-fit: error: --shard-files: $((2 * ranks)) files for $ranks ranks" "$dir/err7.txt")" = 1 ] ||
  fail "mcd shard files per rank: $(cat "$dir/err7.txt")"
"$rf" mcd --shard-files "$list" >/dev/null 2>"$dir/err8.txt"
[ $? = 2 ] || fail "mcd --shard-files without mpirun: exit code"
grep -q "robust-fit: error: --shard-files: one file per rank is for mpirun" "$dir/err8.txt" || fail "mcd --shard-files without mpirun: $(cat "$dir/err8.txt")"
mcd_same stackloss "$datasets/stackloss.csv" --seed 2
mcd_same starsCYG "$datasets/starsCYG.csv" --alpha 0.75
mcd_same iris-one-column "$datasets/iris.csv" --columns petal_length
mcd_same iris-h-n "$datasets/iris.csv" --columns sepal_length,sepal_width,petal_length --alpha 1
mcd_same n25000 "$dir/f.csv" --subsets 100
mcd_same drop-missing "$dir/fmiss.csv" --drop-missing --subsets 50
# An exact fit: a constant column (the message and the hyperplane as one process's).
awk -F , 'BEGIN { OFS = "," } NR > 1 { $2 = 7 } { print }' "$dir/f5000.csv" >"$dir/fconst.csv"
mcd_same constant-column "$dir/fconst.csv" --subsets 50
grep -q '"exact_fit": true' "$dir/mcd_many.json" || fail "mcd constant column: no exact fit"
# The table, printed once: as one process's but for the header (hbk: every row's distance).
"$rf" mcd "$datasets/hbk.csv" --seed 1 -q >"$dir/m_one.txt"
mpi mcd "$datasets/hbk.csv" --seed 1 -q >"$dir/m_many.txt" 2>"$dir/m_err.txt" || fail "mcd table: $(cat "$dir/m_err.txt")"
[ "$(grep -c '^MCD ' "$dir/m_many.txt")" = 1 ] || fail "mcd table not printed once"
grep -q "backend mpi+cpu, $ranks ranks, [0-9]* bytes communicated by rank 0" "$dir/m_many.txt" || fail "mcd table header"
diff <(sed 1d "$dir/m_one.txt") <(sed 1d "$dir/m_many.txt") || fail "mcd table differs"
# Errors: a bad cell in the last rank's part (exit 1, the rank and the line, once); too few rows
# for p (exit 1, said once without a rank); --backend cuda (exit 2).
mpi mcd "$dir/fbad.csv" >/dev/null 2>"$dir/err4.txt"
code=$?
[ $code = 1 ] || fail "mcd bad cell: exit $code"
grep -q "robust-fit: error: rank $((ranks - 1)): .*fbad.csv.*25000" "$dir/err4.txt" || fail "mcd bad cell: $(cat "$dir/err4.txt")"
[ "$(grep -c 'robust-fit: error' "$dir/err4.txt")" = 1 ] || fail "mcd error printed more than once"
head -4 "$datasets/hbk.csv" >"$dir/tiny.csv"
mpi mcd "$dir/tiny.csv" >/dev/null 2>"$dir/err5.txt"
code=$?
[ $code = 1 ] || fail "mcd too few rows: exit $code"
[ "$(grep -c 'robust-fit: error: .*tiny.csv: MCD needs more than p + 1 observations' "$dir/err5.txt")" = 1 ] ||
  fail "mcd too few rows: $(cat "$dir/err5.txt")"
mpi mcd "$datasets/hbk.csv" --backend cuda >/dev/null 2>"$dir/err6.txt"
[ $? = 2 ] || fail "mcd --backend cuda: exit code"

# Ranks bound to one core each: a note (once, by rank 0) that the host passes run on that core,
# silenced by --quiet; none with --bind-to none. Needs a core per rank to bind to.
if [ "$(nproc)" -ge "$ranks" ] && [ "$(nproc)" -ge 2 ]; then
  note='robust-fit: note: [0-9]* of '"$ranks"' ranks may run on one core only'
  for cmd in "fit $datasets/stackloss.csv -y stack.loss" "mcd $datasets/hbk.csv --seed 1"; do
    # shellcheck disable=SC2086
    timeout 60 "$mpiexec" "${flags[@]}" --bind-to core -np "$ranks" "$rf" $cmd >/dev/null 2>"$dir/note.txt" || fail "$cmd bound: $(cat "$dir/note.txt")"
    [ "$(grep -c "$note" "$dir/note.txt")" = 1 ] || fail "$cmd bound to cores: no note once: $(cat "$dir/note.txt")"
    # shellcheck disable=SC2086
    timeout 60 "$mpiexec" "${flags[@]}" --bind-to core -np "$ranks" "$rf" $cmd -q >/dev/null 2>"$dir/note.txt" || fail "$cmd -q bound"
    [ ! -s "$dir/note.txt" ] || fail "$cmd -q bound to cores: stderr $(cat "$dir/note.txt")"
    # shellcheck disable=SC2086
    timeout 60 "$mpiexec" "${flags[@]}" --bind-to none -np "$ranks" "$rf" $cmd >/dev/null 2>"$dir/note.txt" || fail "$cmd unbound"
    ! grep -q "robust-fit: note: .* ranks may run on one core" "$dir/note.txt" || fail "$cmd --bind-to none: $(cat "$dir/note.txt")"
  done
fi
echo "ok"
