tar -xJf .devbin/b.tar.xz -C /tmp; cd /tmp/b
export LD_LIBRARY_PATH=/tmp/b/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
export PATH=$PATH:/usr/local/cuda/bin
O=/tmp/res_b; mkdir -p $O; (nvidia-smi -L; nproc; date -u; ncu --version; which ncu) > $O/machine.txt 2>&1
T0=$(date +%s)
cuobjdump -sass ./bench_selection_bench > $O/all.sass 2>&1
echo "sass at $(($(date +%s)-T0)) s rc $?" >> $O/machine.txt
# keep only the functions of interest
awk '/Function : /{keep = ($0 ~ /bracket_pass|count_buckets|compact_segments|compact/)} keep' $O/all.sass > $O/kernels.sass
xz -9 $O/all.sass
timeout 150 ncu --section SourceCounters --page source --print-source sass --csv -k regex:bracket_pass --launch-count 1 ./bench_selection_bench --sections single --sizes 28 --types float --algorithms floyd-rivest --runs 1 > $O/ncu_src_bracket.csv 2> $O/ncu_src_bracket.err
echo "ncu1 rc $? at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 150 ncu --section SourceCounters --page source --print-source sass --csv -k regex:count_buckets --launch-count 1 ./bench_selection_bench --sections multi --sizes 28 --types float --algorithms sampled-multi --runs 1 > $O/ncu_src_count.csv 2> $O/ncu_src_count.err
echo "ncu2 rc $? at $(($(date +%s)-T0)) s" >> $O/machine.txt
timeout 150 ncu --section SourceCounters --page source --print-source sass --csv -k regex:compact --launch-count 1 ./bench_selection_bench --sections multi --sizes 28 --types float --algorithms sampled-multi --runs 1 > $O/ncu_src_compact.csv 2> $O/ncu_src_compact.err
echo "ncu3 rc $? at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_b.tgz -C /tmp res_b
