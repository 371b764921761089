#!/bin/bash
# Main 1ab4375 (the LMS host and CPU CLI merges): LMS/LTS at 10^6 before (3914b85) and after, the
# CPU backend at 10^5 on 16 cores, then the whole GPU suite.
set -u
D=$(cd "$(dirname "$0")" && pwd); O=${OUT:-/tmp/out}; mkdir -p "$O"; cd "$D"
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
for b in bench_lts_before bench_lts bench_lts_before bench_lts; do
  for prec in double float; do bench/$b --n 1e6 --p 10 --backend cuda --method lms --subsets 3000 --runs 5 --precision $prec | tail -1 | sed "s/^/$b,/"; done
done | tee $O/lms.csv
for b in bench_lts_before bench_lts; do bench/$b --n 1e5 --p 5 --backend cpu --runs 3 | tail -1 | sed "s/^/$b,/"; bench/$b --n 1e6 --p 10 --backend cuda --subsets 500 --mcd off --runs 3 | tail -1 | sed "s/^/$b,/"; done | tee $O/lts.csv
timeout 420 tests/robustfit_gpu_tests > $O/gpu_suite.log 2>&1; echo "gpu suite rc=$?"
grep -a -E "^\[  (PASSED|FAILED)" $O/gpu_suite.log | head -20
