tar -xJf .devpack/b2.tar.xz -C /tmp; cd /tmp/b2; export LD_LIBRARY_PATH=/tmp/b2/libs
R=/tmp/res_b2; mkdir -p $R; nvidia-smi -L > $R/machine.txt
(./bench_csv --generate /tmp/big6.csv --rows 1e6 > /dev/null 2>&1; ./bench_csv --generate /tmp/big7.csv --rows 1e7 > /dev/null 2>&1; cat /tmp/big7.csv > /dev/null) &
./robustfit_gpu_tests --gtest_filter='DeviceStandardizedRows*:*Mcd*:CudaEngine*:DeviceRowReductions*' > $R/tests.txt 2>&1; echo "rc=$?" >> $R/tests.txt
wait
for i in 1 2; do for b in head copy; do ./bench_lts_$b --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd on > $R/lts1e6_on_${b}_$i.txt 2>&1; done; done
ROBUSTFIT_TRACE=1 ./bench_lts_copy --n 1e6 --p 10 --subsets 500 --backend cuda --runs 2 --mcd on > $R/lts1e6_on_copy_trace.txt 2>&1
for i in 1 2 3; do for b in head copy; do /usr/bin/time -f "%e s %M KB" ./robust-fit_$b fit /tmp/big6.csv -y y --quiet > /tmp/o6_$b.txt 2>> $R/cli1e6_$b.txt; done; done
for i in 1 2; do for b in head copy; do /usr/bin/time -f "%e s %M KB" ./robust-fit_$b fit /tmp/big7.csv -y y --quiet > /tmp/o7_$b.txt 2>> $R/cli1e7_$b.txt; done; done
cmp /tmp/o6_head.txt /tmp/o6_copy.txt > $R/cmp6.txt 2>&1; echo "cmp6 rc=$?" >> $R/cmp6.txt
cmp /tmp/o7_head.txt /tmp/o7_copy.txt > $R/cmp7.txt 2>&1; echo "cmp7 rc=$?" >> $R/cmp7.txt
tar -czf $OUT/res_b2.tgz -C /tmp res_b2
