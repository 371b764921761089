tar -xJf .devbin/g.tar.xz -C /tmp; cd /tmp/g
export LD_LIBRARY_PATH=/tmp/g/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_g; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
timeout 170 ./bench_selection_bench --sections tune-multi --sizes 28 --runs 5 --out $O/tune28.csv > $O/tune28.log 2>&1
echo "rc $? all done at $(($(date +%s)-T0)) s" >> $O/machine.txt
tar -czf $OUT/res_g.tgz -C /tmp res_g
