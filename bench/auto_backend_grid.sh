#!/usr/bin/env bash
# The benchmark grid behind --backend auto's cost model (regression/src/backend_cost.cpp): LTS
# fits timed on the CPU engine, the CUDA engine and auto, for n = 10^2 ... 10^7, p = 5 and 10,
# the default search and --subsets 500, plus hbk's shape with 65535 subsets.
#   bench/auto_backend_grid.sh BENCH_LTS OUT.csv
# CPU at n = 10^7 is left out (at 10^6 it is already tens of times slower than CUDA).
set -uo pipefail
bench=$1 out=$2
run() {  # backend runs [bench_lts options...]
  local backend=$1 runs=$2; shift 2
  "$bench" --backend "$backend" --runs "$runs" "$@" | tail -n +2 | sed "s/^/$(echo "$*" | tr ' ,' '_;'),/"
}
echo "options,$("$bench" --n 100 --p 5 --runs 1 --backend cpu | head -1)" > "$out"
for subsets in default 500; do
  extra=(); [[ $subsets != default ]] && extra=(--subsets "$subsets")
  for n in 100 1000 10000 100000 1000000; do
    for p in 5 10; do
      runs=3; [[ $n -ge 1000000 ]] && runs=1
      for backend in cpu cuda auto; do run "$backend" "$runs" --n "$n" --p "$p" "${extra[@]}" >> "$out"; done
    done
  done
  for backend in cuda auto; do run "$backend" 1 --n 10000000 --p 10 "${extra[@]}" >> "$out"; done
done
for backend in cpu cuda auto; do run "$backend" 3 --n 75 --p 4 --subsets 65535 >> "$out"; done
