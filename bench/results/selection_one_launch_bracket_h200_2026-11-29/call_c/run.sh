tar -xJf .devbin/c.tar.xz -C /tmp; cd /tmp/c
export LD_LIBRARY_PATH=/tmp/c/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
O=/tmp/res_c; mkdir -p $O; (nvidia-smi -L; nproc; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_c.tgz -C /tmp res_c; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
B="--sections single --runs 5"
timeout 80 ./sel_exp2 $B --sizes 20,23,24,25 --types float,double --algorithms bracket,radix --out $O/base.csv > $O/base.log 2>&1; st base $?
RF_FIRST_BITS=8 timeout 40 ./sel_exp2 $B --sizes 20,24 --types float,double --algorithms bracket --out $O/fb8.csv > $O/fb8.log 2>&1; st fb8 $?
RF_PER_BLOCK=16384 timeout 40 ./sel_exp2 $B --sizes 20,24 --types float,double --algorithms bracket --out $O/pb16k.csv > $O/pb16k.log 2>&1; st pb16k $?
RF_PER_BLOCK=65536 timeout 40 ./sel_exp2 $B --sizes 20,24 --types float,double --algorithms bracket --out $O/pb64k.csv > $O/pb64k.log 2>&1; st pb64k $?
RF_FIRST_BITS=8 RF_PER_BLOCK=16384 timeout 40 ./sel_exp2 $B --sizes 20,24 --types float,double --algorithms bracket --out $O/fb8pb16k.csv > $O/fb8pb16k.log 2>&1; st fb8pb16k $?
timeout 150 ./robustfit_gpu_tests --gtest_filter='GpuBracket*' > $O/tests.txt 2>&1; st tests $?
