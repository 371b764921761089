tar -xJf .devbin/c.tar.xz -C /tmp; cd /tmp/c
export LD_LIBRARY_PATH=/tmp/c/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
export PATH=$PATH:/usr/local/cuda/bin
O=/tmp/res_c; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
timeout 320 ./robustfit_gpu_tests --gtest_filter='GpuBracket*:GpuFloydRivest*:GpuSelectionCore*:GpuCapabilityCells*:SeedAlgorithms*:GpuSanitizerSmoke*' > $O/tests.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests.txt
echo "tests done at $(($(date +%s)-T0)) s" >> $O/machine.txt
for r in 1 2; do for b in sel_f66f bench_selection_bench; do
  timeout 100 ./$b --sections single --sizes 24,26,28 --types float,double --algorithms floyd-rivest,bracket,auto --runs 10 --out $O/single_${b}_$r.csv > $O/single_${b}_$r.log 2>&1
done; done
echo "bench done at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 100 ncu --section SourceCounters --section SpeedOfLight --page source --print-source sass --csv -k regex:bracket_pass --launch-count 1 ./bench_selection_bench --sections single --sizes 28 --types float --algorithms floyd-rivest --runs 1 > $O/ncu_src_bracket.csv 2> $O/ncu_src_bracket.err
timeout 100 ncu --section SpeedOfLight --section SchedulerStats -k regex:bracket_pass --launch-count 2 ./bench_selection_bench --sections single --sizes 28 --types float,double --algorithms floyd-rivest --runs 1 > $O/ncu_sol.txt 2>&1
echo "rc $? all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_c.tgz -C /tmp res_c
