set -x
SRC=$PWD
tar -xJf .devpack/a.tar.xz -C /tmp; tar -xJf .devpack/f.tar.xz -C /tmp
R=/tmp/res_g; mkdir -p $R
nvidia-smi -L > $R/machine.txt; nproc >> $R/machine.txt; lscpu | grep 'Model name' >> $R/machine.txt
export LD_LIBRARY_PATH=/tmp/f/libs
cd /tmp/f; [ -f /tmp/big7.csv ] || ./bench_csv --generate /tmp/big7.csv --rows 1e7 > /dev/null 2>&1
cat /tmp/big7.csv > /dev/null
for round in 1 2 3; do for v in a f; do
  /usr/bin/time -v /tmp/$v/robust-fit fit /tmp/big7.csv -y y --backend cuda --quiet > /tmp/o_$v.txt 2> $R/e2e_table_${v}_$round.txt
done; done
for round in 1 2; do for v in a f; do
  /usr/bin/time -v /tmp/$v/robust-fit fit /tmp/big7.csv -y y --quiet -o json > /tmp/o_$v.json 2> $R/e2e_json_${v}_$round.txt
done; done
python3 $SRC/.devpack/compare_json.py /tmp/o_a.json /tmp/o_f.json > $R/json_cmp.txt 2>&1
diff /tmp/o_a.txt /tmp/o_f.txt > $R/table_diff.txt 2>&1; echo "diff rc $?" >> $R/table_diff.txt
for v in a f; do /tmp/$v/bench_lts --n 1e6 --p 10 --backend cuda --subsets 500 --mcd off --runs 9 > $R/lts1e6_$v.txt 2>&1; done
for v in a f; do /tmp/$v/bench_lts --n 1e6 --p 10 --backend cuda --subsets 500 --mcd off --runs 9 > $R/lts1e6_${v}_2.txt 2>&1; done
for v in a f; do /tmp/$v/bench_lts --n 1e7 --p 10 --backend cuda --subsets 500 --mcd off --runs 3 > $R/lts1e7_$v.txt 2>&1; done
for v in a f; do /tmp/$v/bench_mcd --n 1e6 --p 10 --backend cuda --runs 9 > $R/mcd1e6_$v.txt 2>&1; done
for v in a f; do /tmp/$v/bench_mcd --n 1e6 --p 10 --backend cuda --runs 9 > $R/mcd1e6_${v}_2.txt 2>&1; done
for v in a f; do /tmp/$v/bench_lts --n 1e6 --p 10 --backend cuda --subsets 500 --runs 5 > $R/lts_mcd1e6_$v.txt 2>&1; done
cd /tmp/f; ./robustfit_gpu_tests --gtest_filter='-GpuBracket*:GpuSampledMulti*:GpuSelection*:SeedAlgorithms*:GpuFloydRivest*:GpuBatchedBracket*:KnnCuda*' > $R/gpu_tests.txt 2>&1
tar -czf $OUT/res_g.tgz -C /tmp res_g
