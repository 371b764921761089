tar -xJf .devbin/f.tar.xz -C /tmp; cd /tmp/f
export LD_LIBRARY_PATH=/tmp/f/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_f; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
timeout 240 ./robustfit_gpu_tests --gtest_filter='GpuBracket*:GpuFloydRivest*:GpuSelectionCore*:GpuCapabilityCells*:SeedAlgorithms*:GpuSanitizerSmoke*' > $O/tests.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests.txt
echo "tests done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_f.tgz -C /tmp res_f
for b in bench_selection_bench sel_f66f; do
  timeout 120 ./$b --sections single --sizes 24,26,28 --types float,double --algorithms radix,floyd-rivest,bracket,auto --runs 10 --out $O/single_big_$b.csv > $O/single_big_$b.log 2>&1
  echo "$b big rc $? at $(($(date +%s)-T0)) s" >> $O/machine.txt
  tar -czf $OUT/res_f.tgz -C /tmp res_f
done
for b in bench_selection_bench sel_f66f; do
  timeout 90 ./$b --sections single --sizes 20,22 --types float,double --algorithms radix,floyd-rivest,bracket,auto --runs 5 --out $O/single_small_$b.csv > $O/single_small_$b.log 2>&1
  echo "$b small rc $? at $(($(date +%s)-T0)) s" >> $O/machine.txt
  tar -czf $OUT/res_f.tgz -C /tmp res_f
done
tar -czf $OUT/res_f.tgz -C /tmp res_f
