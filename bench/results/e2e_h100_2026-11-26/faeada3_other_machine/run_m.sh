tar -xJf .devpack/l.tar.xz -C /tmp; cd /tmp/l; export LD_LIBRARY_PATH=/tmp/l/libs
R=/tmp/res_m; mkdir -p $R; nvidia-smi -L > $R/machine.txt
[ -f /tmp/big7.csv ] || ./bench_csv --generate /tmp/big7.csv --rows 1e7 > /dev/null 2>&1
cat /tmp/big7.csv > /dev/null
for i in 1 2 3; do ROBUSTFIT_TRACE=1 /usr/bin/time -v ./robust-fit fit /tmp/big7.csv -y y --quiet -o json > /tmp/o.json 2> $R/e2e_json_$i.txt; done
for i in 1 2; do ROBUSTFIT_TRACE=1 /usr/bin/time -v ./robust-fit fit /tmp/big7.csv -y y --quiet > /tmp/o.txt 2> $R/e2e_table_auto_$i.txt; done
tar -czf $OUT/res_m.tgz -C /tmp res_m
