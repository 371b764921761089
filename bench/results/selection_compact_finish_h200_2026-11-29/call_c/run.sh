N=c; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
timeout 40 ./sel_new --sections single --sizes 25 --types double --algorithms auto,bracket,floyd-rivest --runs 5 --out $O/d25.csv > $O/d25.log 2>&1; st d25 $?
timeout 100 ./sel_new --sections single --sizes 27,28 --types float,double --algorithms auto,bracket,floyd-rivest --runs 5 --out $O/big.csv > $O/big.log 2>&1; st big $?
timeout 120 ./sel_new --sections tune-bracket --sizes 27,28 --types float,double --runs 5 --out $O/tune.csv > $O/tune.log 2>&1; st tune $?
for g in 0 132 264 396; do
  if [ $g = 0 ]; then unset RF_RADIX_GRID; else export RF_RADIX_GRID=$g; fi
  timeout 40 ./sel_rgrid --sections single --sizes 20,21,22 --types float,double --algorithms radix --runs 5 --out $O/rgrid_$g.csv > $O/rgrid_$g.log 2>&1; st rgrid_$g $?
done
unset RF_RADIX_GRID
