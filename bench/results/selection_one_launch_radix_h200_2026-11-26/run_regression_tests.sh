tar -xJf .devpack/g2.tar.xz -C /tmp; cd /tmp/g2; export LD_LIBRARY_PATH=/tmp/g2/libs
R=/tmp/res_h2; mkdir -p $R; nvidia-smi -L > $R/machine.txt
timeout 170 ./robustfit_gpu_tests --gtest_filter='-GpuBracket*:GpuSampledMulti*:GpuSelection*:SeedAlgorithms*:GpuFloydRivest*:GpuBatchedBracket*:KnnCuda*' > $R/regression_tests.txt 2>&1; echo "rc=$?" >> $R/regression_tests.txt
tar -czf $OUT/res_h2.tgz -C /tmp res_h2
