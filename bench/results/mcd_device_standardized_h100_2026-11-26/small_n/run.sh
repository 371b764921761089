tar -xJf .devpack/v.tar.xz -C /tmp; cd /tmp/v; export LD_LIBRARY_PATH=/tmp/v/libs
R=/tmp/res_v; mkdir -p $R; nvidia-smi -L > $R/machine.txt
for i in 1 2 3; do for b in before after; do ./bench_mcd_$b --n 1e4,6e4,1e5,2e5 --p 10 --backend cuda --runs 9 > $R/mcd_small_${b}_$i.txt 2>&1; done; done
ROBUSTFIT_TRACE=1 ./bench_lts --n 1e7 --p 50 --subsets 500 --mcd off --backend cuda --runs 1 > $R/lts1e7p50_trace.txt 2>&1
NSYS=$(ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1); echo "nsys=$NSYS" > $R/nsys_path.txt
[ -n "$NSYS" ] && $NSYS profile -o /tmp/p50 --stats=false ./bench_lts --n 1e7 --p 50 --subsets 500 --mcd off --backend cuda --runs 1 > $R/nsys_run.txt 2>&1 && $NSYS stats --report cuda_gpu_kern_sum,cuda_api_sum --format csv -o $R/p50 /tmp/p50.nsys-rep > $R/nsys_stats.txt 2>&1
tar -czf $OUT/res_v.tgz -C /tmp res_v
