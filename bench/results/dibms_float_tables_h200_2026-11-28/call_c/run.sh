# binaries 60f8, b, d (README); setup lines as call_a's
for np in 1 2 4; do timeout 100 $M -np $np ./robustfit_distributed_gpu_tests > $O/dgpu_np$np.txt 2>&1; done
for r in 1 2 3; do for b in 60f8 b d; do for d in uniform normal; do
  timeout 60 $M -np 4 ./dsel_$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --commit $b --out $O/dsel.csv
done; done; done
for b in 60f8 d; do for d in uniform normal; do
  timeout 60 $M -np 2 ./dsel_$b --total-log2 30 --runs 7 --distribution $d --methods dibms,dibms-median,single-shard --commit $b --out $O/dsel.csv
done; done
$M -np 4 --tag-output -x ROBUSTFIT_TRACE=1 ./dsel_d --total-log2 30 --runs 3 --distribution uniform --methods dibms   # trace_dsel4.txt
$M -np 4 --tag-output -x ROBUSTFIT_TRACE=1 ./dsel_d --total-log2 30 --runs 3 --distribution normal --methods dibms    # trace_dsel4n.txt
