# one H200 (the 4-GPU kind was not lent); binaries 60f8, d, e (README); setup lines as call_a's
timeout 100 $M -np 1 ./robustfit_distributed_gpu_tests > $O/dgpu_np1.txt 2>&1
for r in 1 2 3; do for b in 60f8 d e; do for d in uniform normal; do
  timeout 60 $M -np 1 ./dsel_$b --total-log2 28 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --commit $b --out $O/dsel.csv
done; done; done
for d in uniform normal; do
  /usr/local/cuda/bin/ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats -k regex:"count_kernel|float_reduce" --launch-count 2 ./dsel_e --total-log2 28 --runs 1 --distribution $d --methods dibms > $O/ncu_$d.txt
done
