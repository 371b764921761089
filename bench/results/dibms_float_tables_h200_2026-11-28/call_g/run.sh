# one H200; binaries 60f8, d, f (README); setup lines as call_a's
timeout 100 $M -np 1 ./robustfit_distributed_gpu_tests > $O/dgpu_np1.txt 2>&1
for b in 60f8 d f; do for d in uniform normal; do
  /usr/local/cuda/bin/ncu --section SpeedOfLight --section SchedulerStats -k regex:"count_kernel|float_reduce" --launch-count 2 ./dsel_$b --total-log2 28 --runs 1 --distribution $d --methods dibms > $O/ncu_${b}_$d.txt
done; done
for r in 1 2 3; do for b in 60f8 d f; do for d in uniform normal; do
  timeout 60 $M -np 1 ./dsel_$b --total-log2 28 --runs 7 --distribution $d --methods dibms,dibms-median --commit $b --out $O/dsel.csv
done; done; done
