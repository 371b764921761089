tar -xJf .devbin/d.tar.xz -C /tmp; cd /tmp/d
export LD_LIBRARY_PATH=/tmp/d/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_d; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_d.tgz -C /tmp res_d; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
B="--sections single --runs 5"
timeout 60 ./sel_exp3 $B --sizes 20,24 --types float,double --algorithms bracket,radix --out $O/exp3.csv > $O/exp3.log 2>&1; st exp3 $?
N=/usr/local/cuda/bin/ncu
for s in 20 24; do
timeout 70 $N --clock-control none --cache-control none --metrics gpu__time_duration.sum -k regex:'one_launch|bracket_pass|sample_in_block|finish_digit|DeviceReduce' --launch-count 90 --csv ./sel_exp3 --sections single --sizes $s --types float --algorithms bracket,radix --runs 1 > $O/ncu_$s.csv 2> $O/ncu_$s.err; st ncu$s $?
done
