# one H200; f plus two developer traces inside count_buckets (not kept); setup lines as call_a's
$M -np 1 -x ROBUSTFIT_TRACE=1 ./dsel_h --total-log2 28 --runs 5 --distribution uniform --methods dibms > $O/trace1.txt 2>&1
./dsel_h --total-log2 28 --runs 5 --distribution uniform --methods dibms > $O/plain.txt 2>&1
ROBUSTFIT_TRACE=1 ./dsel_h --total-log2 28 --runs 5 --distribution uniform --methods dibms > $O/trace_nompi.txt 2>&1
