tar -xJf .devpack/x.tar.xz -C /tmp; cd /tmp/x; export LD_LIBRARY_PATH=/tmp/x/libs
R=/tmp/res_x; mkdir -p $R; nvidia-smi -L > $R/machine.txt
(./bench_csv --generate /tmp/big7.csv --rows 1e7 > /dev/null 2>&1; cat /tmp/big7.csv > /dev/null) &
timeout 420 ./robustfit_gpu_tests > $R/gpu_tests.txt 2>&1; echo "rc=$?" >> $R/gpu_tests.txt
./robustfit_gpu_oom_tests > $R/oom_tests.txt 2>&1; echo "rc=$?" >> $R/oom_tests.txt
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 -x NCCL_NVLS_ENABLE=0 ./robustfit_distributed_gpu_tests > $R/dist_np2.txt 2>&1; echo "rc=$?" >> $R/dist_np2.txt
wait
for i in 1 2; do for b in before after; do ./bench_mcd_$b --n 1e6 --p 10 --backend cuda --runs 9 > $R/mcd1e6_${b}_$i.txt 2>&1; done; done
./bench_lts --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd on > $R/lts1e6_mcd_on.txt 2>&1
./bench_lts --n 1e6 --p 10 --subsets 500 --backend cuda --runs 9 --mcd off > $R/lts1e6_mcd_off.txt 2>&1
for i in 1 2; do ROBUSTFIT_TRACE=1 /usr/bin/time -v ./robust-fit fit /tmp/big7.csv -y y --quiet > /tmp/o.txt 2> $R/e2e_table_$i.txt; done
ROBUSTFIT_TRACE=1 /usr/bin/time -v ./robust-fit fit /tmp/big7.csv -y y --quiet -o json > /tmp/o.json 2> $R/e2e_json.txt
head -c 3000 /tmp/o.txt > $R/e2e_table_output_head.txt
tar -czf $OUT/res_x.tgz -C /tmp res_x
