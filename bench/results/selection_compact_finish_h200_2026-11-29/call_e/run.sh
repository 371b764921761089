N=e; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u; python3 -c 'import torch, sys; print("torch", torch.__version__, sys.version.split()[0])'; python3 -c 'import cupy; print("cupy", cupy.__version__)') > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 240 ./sel --sections single,multi,batched --types float,double --algorithms auto --sizes 20,22,23,24,25,26,28 --runs 5 --out $O/sel.csv > $O/sel.log 2>&1; st sel $?
timeout 200 python3 $REPO/bench/peers/selection_peers.py --out $O/peers.csv --runs 5 > $O/peers.log 2>&1; st peers $?
python3 $REPO/bench/selection_issue_report.py --bench $O/sel.csv --peers $O/peers.csv > $O/report.md 2> $O/report.err; st report $?
