tar -xJf .devbin/d.tar.xz -C /tmp; cd /tmp/d
export LD_LIBRARY_PATH=/tmp/d/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
export PATH=$PATH:/usr/local/cuda/bin:/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64
O=/tmp/res_d; rm -rf $O; mkdir -p $O; (nvidia-smi -L; date -u; which nsys; nsys --version) > $O/machine.txt 2>&1
T0=$(date +%s)
for b in bench_selection_bench sel_f66f; do
  timeout 100 nsys profile -o $O/$b --force-overwrite true ./$b --sections single --sizes 28 --types float,double --algorithms floyd-rivest,bracket --runs 5 --out $O/single_$b.csv > $O/nsys_$b.log 2>&1
  timeout 60 nsys stats --report cuda_gpu_trace --format csv -o $O/$b $O/$b.nsys-rep >> $O/nsys_$b.log 2>&1
done
timeout 100 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum -k regex:"pick_bracket|bracket_pass|radix|finish|sample|select|count|digit" --launch-count 60 ./bench_selection_bench --sections single --sizes 28 --types float --algorithms floyd-rivest,bracket --runs 2 > $O/ncu_times.txt 2>&1
echo "rc $? all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
rm -f $O/*.nsys-rep $O/*.sqlite; ls -la $O >> $O/machine.txt
tar -czf $OUT/res_d.tgz -C /tmp res_d
