tar -xJf .devbin/e.tar.xz -C /tmp; cd /tmp/e
export LD_LIBRARY_PATH=/tmp/e/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
export PATH=$PATH:/usr/local/cuda/bin
O=/tmp/res_e; mkdir -p $O; (nvidia-smi -L; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
for r in 1 2; do for b in sel_f66f sel_grid bench_selection_bench sel_s8k; do
  timeout 60 ./$b --sections single --sizes 28 --types float,double --algorithms floyd-rivest,bracket --runs 10 --out $O/single_${b}_$r.csv > $O/single_${b}_$r.log 2>&1
done; done
echo "bench done at $(($(date +%s)-T0)) s" >> $O/machine.txt
for b in sel_grid bench_selection_bench; do
timeout 60 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active -k regex:"bracket_pass|pick_bracket" --launch-count 4 ./$b --sections single --sizes 28 --types float --algorithms floyd-rivest --runs 1 > $O/ncu_$b.txt 2>&1
done
echo "rc $? all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_e.tgz -C /tmp res_e
