tar -xJf .devpack/a2.tar.xz -C /tmp; cd /tmp/a2; export LD_LIBRARY_PATH=/tmp/a2/libs
R=/tmp/res_a2; mkdir -p $R; nvidia-smi -L > $R/machine.txt
./robustfit_gpu_tests --gtest_filter='DeviceStandardizedRows*:*Mcd*:CudaEngine*:DeviceRowReductions*' > $R/tests.txt 2>&1; echo "rc=$?" >> $R/tests.txt
for i in 1 2; do for b in before after; do ./bench_mcd_$b --n 1e6 --p 10 --backend cuda --runs 9 > $R/mcd1e6_${b}_$i.txt 2>&1; done; done
for b in before after; do ./bench_mcd_$b --n 1e5,1e7 --p 10 --backend cuda --runs 3 > $R/mcd_other_${b}.txt 2>&1; done
ROBUSTFIT_TRACE=1 ./bench_mcd_after --n 1e6 --p 10 --backend cuda --runs 3 --write-data /tmp/mcdcsv > $R/trace_mcd_after.txt 2>&1
ROBUSTFIT_TRACE=1 ./bench_lts --n 1e6 --p 10 --subsets 500 --backend cuda --runs 3 --mcd on > $R/lts1e6_on_trace.txt 2>&1
ls -la /tmp/mcdcsv > $R/csv_ls.txt 2>&1
F=$(ls /tmp/mcdcsv/*.csv | head -1); head -c 300 $F > $R/csv_head.txt
for i in 1 2 3; do ROBUSTFIT_TRACE=1 /usr/bin/time -v ./robust-fit mcd $F --backend cuda > $R/cli_mcd_$i.txt 2>&1; done
tar -czf $OUT/res_a2.tgz -C /tmp res_a2
