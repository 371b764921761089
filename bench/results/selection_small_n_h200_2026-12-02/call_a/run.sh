#!/usr/bin/env bash
# Call a (2026-12-02, main 2cc9e70): the whole GPU test suite; where a small call's time goes
# (nsys: the CUDA API and the GPU's kernels and copies for radix at 2^16 / 2^20, the bracket
# at 2^24 and 101 percentiles at 2^24, floats).
N=a; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
for i in 0 1 2; do
  (GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i timeout 240 ./robustfit_gpu_tests > $O/tests_$i.txt 2>&1; echo "rc $? at $(($(date +%s)-T0)) s" >> $O/tests_$i.txt) &
done
wait; save
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $NSYS" >> $O/machine.txt
prof() {  # name, then the bench's arguments
  local name=$1; shift
  timeout 120 $NSYS profile -t cuda -o $O/$name -f true ./selection_bench "$@" --out $O/$name.csv > $O/$name.log 2>&1
  timeout 60 $NSYS stats -r cuda_gpu_trace,cuda_api_trace -f csv -o $O/$name $O/$name.nsys-rep >> $O/$name.log 2>&1
  rm -f $O/$name.nsys-rep $O/$name.sqlite; xz -9 $O/${name}_*.csv 2>/dev/null; st $name $?
}
prof radix --sections tune-radix --sizes 16,20 --types float --runs 10
prof bracket --sections single --algorithms bracket,radix,floyd-rivest --sizes 20,24 --types float --runs 10
prof multi --sections multi-phases --sizes 24 --types float --runs 10
