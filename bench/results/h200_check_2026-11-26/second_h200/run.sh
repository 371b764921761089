tar -xJf .devpack/d2.tar.xz -C /tmp; cd /tmp/d2; export LD_LIBRARY_PATH=/tmp/d2/libs
R=/tmp/res_d2; mkdir -p $R; nvidia-smi -L > $R/machine.txt
for i in 1 2; do for b in before after; do ROBUSTFIT_TRACE=1 ./finish_$b --n 1e6 --p 10 --runs 7 > $R/finish1e6_${b}_$i.txt 2>&1; done; done
for b in before after; do ROBUSTFIT_TRACE=1 ./finish_$b --n 1e6 --p 50 --runs 3 > $R/finish1e6p50_${b}.txt 2>&1; done
for i in 1 2; do for b in before after; do ./lts_$b --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd off > $R/lts1e6_${b}_$i.txt 2>&1; done; done
tar -czf $OUT/res_d2.tgz -C /tmp res_d2
