tar -xJf .devbin/g.tar.xz -C /tmp; cd /tmp/g
export LD_LIBRARY_PATH=/tmp/g/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_g; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_g.tgz -C /tmp res_g; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
RF_STAMPS=1 timeout 40 ./sel_stamps --sections single --runs 3 --sizes 20,24 --types float,double --algorithms bracket --out $O/stamps.csv > $O/stamps.log 2>&1; st stamps $?
timeout 100 ./sel_head --sections single --runs 5 --sizes 23,25 --types float,double --algorithms auto,radix,bracket,floyd-rivest --out $O/odd.csv > $O/odd.log 2>&1; st odd $?
