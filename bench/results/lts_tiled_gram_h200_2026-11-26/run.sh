tar -xJf .devpack/e.tar.xz -C /tmp; cd /tmp/e; export LD_LIBRARY_PATH=/tmp/e/libs
R=/tmp/res_e; mkdir -p $R; nvidia-smi -L > $R/machine.txt
./robustfit_gpu_tests --gtest_filter='CudaEngine*:DeviceRowReductions*:CudaMcd*' > $R/gpu_tests.txt 2>&1; echo "rc=$?" >> $R/gpu_tests.txt
for i in 1 2; do
ROBUSTFIT_TRACE=1 ./bench_lts_prev --n 1e7 --p 50 --subsets 500 --backend cuda --runs 1 --mcd off > $R/prev_$i.txt 2>&1
ROBUSTFIT_TRACE=1 ./bench_lts --n 1e7 --p 50 --subsets 500 --backend cuda --runs 1 --mcd off > $R/new_$i.txt 2>&1
done
./bench_lts_prev --n 1e6 --p 30,50 --subsets 500 --backend cuda --runs 3 --mcd off > $R/prev_1e6.txt 2>&1
./bench_lts --n 1e6 --p 30,50 --subsets 500 --backend cuda --runs 3 --mcd off > $R/new_1e6.txt 2>&1
tar -czf $OUT/res_e.tgz -C /tmp res_e
