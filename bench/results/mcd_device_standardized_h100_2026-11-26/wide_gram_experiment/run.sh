tar -xJf .devpack/w.tar.xz -C /tmp; cd /tmp/w; export LD_LIBRARY_PATH=/tmp/w/libs
R=/tmp/res_w; mkdir -p $R; nvidia-smi -L > $R/machine.txt
./robustfit_gpu_tests --gtest_filter='CudaEngine*:DeviceStandardizedRows*' > $R/engine_tests.txt 2>&1; echo "rc=$?" >> $R/engine_tests.txt
for b in masked after; do ./bench_lts_$b --n 1e6 --p 22,25,35,50 --subsets 500 --mcd off --backend cuda --runs 3 > $R/lts1e6_wide_$b.txt 2>&1; done
for b in masked after; do ROBUSTFIT_TRACE=1 ./bench_lts_$b --n 1e7 --p 50 --subsets 500 --mcd off --backend cuda --runs 1 > $R/lts1e7p50_$b.txt 2>&1; done
tar -czf $OUT/res_w.tgz -C /tmp res_w
