# one H200; binaries 60f8, f, j (README); setup lines as call_a's
timeout 100 $M -np 1 ./robustfit_distributed_gpu_tests > $O/dgpu_np1.txt 2>&1
for r in 1 2 3 4; do for b in 60f8 f j; do for d in uniform normal; do
  timeout 60 $M -np 1 ./dsel_$b --total-log2 28 --runs 7 --distribution $d --methods dibms,dibms-median --commit $b --out $O/dsel.csv
done; done; done
$M -np 1 -x ROBUSTFIT_TRACE=1 ./dsel_j --total-log2 28 --runs 5 --distribution uniform --methods dibms > $O/trace1.txt 2>&1
