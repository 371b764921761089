tar -xJf .devpack/c.tar.xz -C /tmp; cd /tmp/c; export LD_LIBRARY_PATH=/tmp/c/libs
R=/tmp/res_c; mkdir -p $R; nvidia-smi -L > $R/machine.txt
./robustfit_gpu_tests --gtest_filter='DeviceRowReductions*:CudaEngine*' > $R/gpu_tests.txt 2>&1; echo "rc=$?" >> $R/gpu_tests.txt
for i in 1 2; do
ROBUSTFIT_TRACE=1 ./bench_lts --n 1e7 --p 50 --subsets 500 --backend cuda --runs 1 --mcd off > $R/new_$i.txt 2>&1
done
ROBUSTFIT_TRACE=1 ./bench_lts_main --n 1e7 --p 50 --subsets 500 --backend cuda --runs 1 --mcd off > $R/main_1.txt 2>&1
ROBUSTFIT_TRACE=1 ./bench_lts --n 1e7 --p 50 --subsets 500 --backend cuda --runs 1 --mcd on > $R/new_mcd_on.txt 2>&1
for i in 1 2; do
./bench_lts_main --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd off > $R/main_1e6x10_$i.txt 2>&1
./bench_lts --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd off > $R/new_1e6x10_$i.txt 2>&1
done
tar -czf $OUT/res_c.tgz -C /tmp res_c
