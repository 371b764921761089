# as call_a's without the GPU suite; binaries 60f8, b, c (README); LTS traced at np 4 with c
for np in 1 2 4; do timeout 100 $M -np $np ./robustfit_distributed_gpu_tests > $O/dgpu_np$np.txt 2>&1; done
for r in 1 2 3; do for b in 60f8 b c; do for d in uniform normal; do
  timeout 60 $M -np 4 ./dsel_$b --total-log2 30 --runs 7 --distribution $d --methods dibms,single-shard --commit $b --out $O/dsel.csv
done; done; done
B="--p 10 --backend cuda --runs 1 --subsets 500"
for r in 1 2; do for b in 60f8 b c; do for np in 1 4; do
  timeout 90 $M -np $np ./dlts_$b --per-rank 1e7 $B --commit $b --out $O/lts_weak.csv
done; done; done
$M -np 4 --tag-output -x ROBUSTFIT_TRACE=1 ./dsel_c --total-log2 30 --runs 3 --distribution uniform --methods dibms   # trace_dsel4.txt
$M -np 4 --tag-output -x ROBUSTFIT_TRACE=1 ./dsel_c --total-log2 30 --runs 3 --distribution normal --methods dibms    # trace_dsel4n.txt
$M -np 4 --tag-output -x ROBUSTFIT_TRACE=1 ./dlts_c --per-rank 1e7 $B                                                 # trace_lts4.txt
