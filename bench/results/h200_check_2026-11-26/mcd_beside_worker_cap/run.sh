tar -xJf .devpack/f2.tar.xz -C /tmp; cd /tmp/f2; export LD_LIBRARY_PATH=/tmp/f2/libs
R=/tmp/res_f2; mkdir -p $R; nvidia-smi -L > $R/machine.txt
(./bench_csv --generate /tmp/big6.csv --rows 1e6 > /dev/null 2>&1) &
for i in 1 2 3; do for b in before cap; do ./lts_$b --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd on > $R/lts1e6_on_${b}_$i.txt 2>&1; done; done
for b in before cap; do ./lts_$b --n 1e7 --p 10 --backend cuda --runs 3 --mcd on > $R/lts1e7_on_${b}.txt 2>&1; done
wait
for i in 1 2 3; do for b in copy cap; do /usr/bin/time -f "%e s %M KB" ./robust-fit_$b fit /tmp/big6.csv -y y --quiet > /tmp/o6_$b.txt 2>> $R/cli1e6_$b.txt; done; done
cmp /tmp/o6_copy.txt /tmp/o6_cap.txt > $R/cmp6.txt 2>&1; echo "cmp6 rc=$?" >> $R/cmp6.txt
tar -czf $OUT/res_f2.tgz -C /tmp res_f2
