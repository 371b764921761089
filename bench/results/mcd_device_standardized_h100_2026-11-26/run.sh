tar -xJf .devpack/u.tar.xz -C /tmp; cd /tmp/u; export LD_LIBRARY_PATH=/tmp/u/libs
R=/tmp/res_u; mkdir -p $R; nvidia-smi -L > $R/machine.txt
./robustfit_gpu_tests --gtest_filter='DeviceStandardizedRows*:*Mcd*:CudaEngine*' > $R/new_and_mcd_tests.txt 2>&1; echo "rc=$?" >> $R/new_and_mcd_tests.txt
for i in 1 2 3; do for b in before after; do ./bench_mcd_$b --n 1e6 --p 10 --backend cuda --runs 9 > $R/mcd1e6_${b}_$i.txt 2>&1; done; done
for b in before after; do ./bench_mcd_$b --n 1e4,1e5,2e5,5e5,1e7 --p 10 --backend cuda --runs 5 > $R/mcd_other_${b}.txt 2>&1; done
ROBUSTFIT_TRACE=1 ./bench_mcd_after --n 1e6 --p 10 --backend cuda --runs 3 > $R/trace_after_1e6.txt 2>&1
./bench_lts --n 1e6 --p 10 --subsets 500 --backend cuda --runs 5 > $R/lts1e6.txt 2>&1
./bench_lts --n 1e7 --p 10 --backend cuda --runs 3 > $R/lts1e7.txt 2>&1
timeout 200 ./robustfit_gpu_tests --gtest_filter='-GpuBracket*:GpuSampledMulti*:GpuSelection*:SeedAlgorithms*:GpuFloydRivest*:GpuBatchedBracket*:KnnCuda*' > $R/regression_tests.txt 2>&1; echo "rc=$?" >> $R/regression_tests.txt
tar -czf $OUT/res_u.tgz -C /tmp res_u
