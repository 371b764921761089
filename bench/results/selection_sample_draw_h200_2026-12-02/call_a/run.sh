#!/usr/bin/env bash
# Call a (2026-12-02): sample draw by __umul64hi + run-aggregated sample select, tune rows.
set -u
REPO=$PWD
mkdir -p /tmp/a && tar -xJf .devbin/a.tar.xz -C /tmp
cd /tmp/a
export LD_LIBRARY_PATH=/tmp/a/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $OUT/gpu.txt
(cd $REPO && git log -1 --format=%H 2>/dev/null) > $OUT/commit.txt
T0=$(date +%s)
timeout 150 ./robustfit_gpu_tests --gtest_filter='Gpu*:SeedAlgorithms*:*Selection*' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$? $(( $(date +%s)-T0 ))s" >> $OUT/steps.txt
tail -3 $OUT/gpu_tests.txt >> $OUT/steps.txt
timeout 40 ./probe --log-n 20,28 --runs 20 > $OUT/probe.csv 2> $OUT/probe.err
echo "probe rc=$? $(( $(date +%s)-T0 ))s" >> $OUT/steps.txt
timeout 170 ./sel --sections single --types float,double --algorithms auto,floyd-rivest,bracket,radix --sizes 20,24,28 --runs 5 --out $OUT/single.csv > $OUT/single.log 2>&1
echo "single rc=$? $(( $(date +%s)-T0 ))s" >> $OUT/steps.txt
timeout 120 ./sel --sections tune-bracket --types float --sizes 24,26,28 --runs 5 --out $OUT/tune_bracket.csv > $OUT/tune_bracket.log 2>&1
echo "tune-bracket rc=$? $(( $(date +%s)-T0 ))s" >> $OUT/steps.txt
timeout 40 ./sel --sections tune-radix --types float,double --runs 10 --out $OUT/tune_radix.csv > $OUT/tune_radix.log 2>&1
echo "tune-radix rc=$? $(( $(date +%s)-T0 ))s" >> $OUT/steps.txt
timeout 60 /usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  --kernel-name 'regex:^(?!.*(Reduce|fill|Memset)).*$' ./sel --quick --sections single --types float \
  --algorithms floyd-rivest,bracket --sizes 24,28 --runs 2 --out /tmp/ncu_sel.csv > $OUT/ncu.csv 2> $OUT/ncu.err
echo "ncu rc=$? $(( $(date +%s)-T0 ))s" >> $OUT/steps.txt
