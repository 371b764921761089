tar -xJf .devpack/c2.tar.xz -C /tmp; cd /tmp/c2; export LD_LIBRARY_PATH=/tmp/c2/libs
R=/tmp/res_c2; mkdir -p $R; nvidia-smi -L > $R/machine.txt; nproc >> $R/machine.txt; lscpu | grep "Model name" >> $R/machine.txt
for i in 1 2; do ./bench_lts --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd off > $R/lts1e6_off_$i.txt 2>&1; done
./bench_lts --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd off --precision float > $R/lts1e6_off_float.txt 2>&1
./bench_lts --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd on > $R/lts1e6_on.txt 2>&1
./bench_lts --n 1e7 --p 10 --backend cuda --runs 3 --mcd off > $R/lts1e7_off.txt 2>&1
for i in 1 2; do ./bench_mcd --n 1e6 --p 10 --backend cuda --runs 9 > $R/mcd1e6_$i.txt 2>&1; done
tar -czf $OUT/res_c2.tgz -C /tmp res_c2
