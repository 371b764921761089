N=e; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 200 /usr/local/cuda/bin/ncu --kernel-name regex:'compact_bands|count_bands|locate_bands|plan_bands' --launch-count 4 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis -o $O/prof ./sel_new --sections multi --sizes 28 --types float --algorithms sampled-multi --runs 1 --out $O/x.csv > $O/ncu.log 2>&1; st ncu $?
/usr/local/cuda/bin/ncu --import $O/prof.ncu-rep --page details > $O/details.txt 2>&1; st details $?
/usr/local/cuda/bin/cuobjdump -sass ./sel_new | awk '/Function : .*(compact_bandsIf|flush_stageIj|locate_bandsIf)/{f=1;print;next} /Function : /{f=0} f' > $O/compact.sass 2>&1; st sass $?
