set -x
tar -xJf .devpack/f.tar.xz -C /tmp; tar -xJf .devpack/l.tar.xz -C /tmp
R=/tmp/res_l; mkdir -p $R; nvidia-smi -L > $R/machine.txt
export LD_LIBRARY_PATH=/tmp/l/libs
cd /tmp/l
./robustfit_gpu_tests --gtest_filter='-GpuBracket*:GpuSampledMulti*:GpuSelection*:SeedAlgorithms*:GpuFloydRivest*:GpuBatchedBracket*:KnnCuda*' > $R/gpu_tests.txt 2>&1
./robustfit_gpu_oom_tests > $R/oom.txt 2>&1
[ -f /tmp/big7.csv ] || ./bench_csv --generate /tmp/big7.csv --rows 1e7 > /dev/null 2>&1
cat /tmp/big7.csv > /dev/null
for round in 1 2 3; do for v in f l; do
  ROBUSTFIT_TRACE=1 /usr/bin/time -v /tmp/$v/robust-fit fit /tmp/big7.csv -y y --backend cuda --quiet > /tmp/o_$v.txt 2> $R/e2e_table_${v}_$round.txt
done; done
diff /tmp/o_f.txt /tmp/o_l.txt > $R/table_diff.txt 2>&1; echo "diff rc $?" >> $R/table_diff.txt
for round in 1 2; do for v in f l; do /tmp/$v/bench_lts --n 1e6 --p 10 --backend cuda --subsets 500 --runs 7 > $R/lts_mcd1e6_${v}_$round.txt 2>&1; done; done
for v in f l; do /tmp/$v/bench_lts --n 1e6 --p 10 --backend cuda --subsets 500 --mcd off --runs 7 > $R/lts1e6_${v}.txt 2>&1; done
tar -czf $OUT/res_l.tgz -C /tmp res_l
