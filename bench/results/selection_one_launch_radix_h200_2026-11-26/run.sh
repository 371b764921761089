tar -xJf .devpack/g2.tar.xz -C /tmp; cd /tmp/g2; export LD_LIBRARY_PATH=/tmp/g2/libs
R=/tmp/res_g2; mkdir -p $R; nvidia-smi -L > $R/machine.txt
timeout 200 ./robustfit_gpu_tests --gtest_filter='GpuSelectionCore*:GpuFloydRivest*:SeedAlgorithms*:GpuCapabilityCells*:GpuBracket*' > $R/sel_tests.txt 2>&1; echo "rc=$?" >> $R/sel_tests.txt
for b in before after; do timeout 150 ./selbench_$b --sections single --types float,double --algorithms radix,auto --runs 10 --out $R/single_$b.csv > $R/single_$b.txt 2>&1; echo "rc=$?" >> $R/single_$b.txt; done
tar -czf $OUT/res_g2.tgz -C /tmp res_g2
