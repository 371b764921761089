tar -xJf .devbin/d.tar.xz -C /tmp; cd /tmp/d
export LD_LIBRARY_PATH=/tmp/d/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_d; mkdir -p $O; (nvidia-smi -L; nproc; date -u; which nsys ncu; ls /usr/local/cuda/bin | head -50) > $O/machine.txt 2>&1
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH"
T0=$(date +%s)
timeout 60 $M -np 1 ./robustfit_distributed_gpu_tests --gtest_filter='CudaLocalShard.*:IntervalLookup.*' > $O/dgpu_np1.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/dgpu_np1.txt
NSYS=$(which nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
NCU=$(which ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "nsys=$NSYS ncu=$NCU" >> $O/machine.txt
timeout 120 $NSYS profile -o $O/dsel1 --force-overwrite true ./dsel_d --total-log2 28 --runs 5 --distribution uniform --methods dibms --out $O/x.csv > $O/nsys_run.txt 2>&1
timeout 60 $NSYS stats --report cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_trace --format csv -o $O/dsel1 $O/dsel1.nsys-rep > $O/nsys_stats.txt 2>&1
echo "nsys done at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 200 $NCU --section SpeedOfLight --section WarpStateStats --section Occupancy --section SchedulerStats --section MemoryWorkloadAnalysis -k regex:"count_kernel|float_reduce" --launch-skip 2 --launch-count 4 ./dsel_d --total-log2 28 --runs 2 --distribution uniform --methods dibms --out $O/y.csv > $O/ncu.txt 2>&1
echo "all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
rm -f $O/dsel1.sqlite
tar -czf $OUT/res_d.tgz -C /tmp res_d
