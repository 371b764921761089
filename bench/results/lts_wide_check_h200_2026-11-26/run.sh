tar -xJf .devpack/d.tar.xz -C /tmp; cd /tmp/d; export LD_LIBRARY_PATH=/tmp/d/libs
R=/tmp/res_d; mkdir -p $R; nvidia-smi -L > $R/machine.txt
for i in 1 2 3; do
ROBUSTFIT_TRACE=1 ./bench_lts --n 1e7 --p 50 --subsets 500 --backend cuda --runs 1 --mcd off > $R/new_1e7x50_$i.txt 2>&1
done
ROBUSTFIT_TRACE=1 ./bench_lts_main --n 1e7 --p 50 --subsets 500 --backend cuda --runs 1 --mcd off > $R/main_1e7x50.txt 2>&1
./bench_lts --n 1e7 --p 10 --backend cuda --runs 3 --mcd off > $R/new_1e7x10.txt 2>&1
./bench_lts_main --n 1e7 --p 10 --backend cuda --runs 3 --mcd off > $R/main_1e7x10.txt 2>&1
./robustfit_gpu_oom_tests > $R/oom.txt 2>&1; echo "rc=$?" >> $R/oom.txt
mpirun --allow-run-as-root --oversubscribe -np 2 -x NCCL_NVLS_ENABLE=0 ./robustfit_distributed_gpu_tests > $R/dist2.txt 2>&1; echo "rc=$?" >> $R/dist2.txt
timeout 420 ./robustfit_gpu_tests > $R/gpu_all.txt 2>&1; echo "rc=$?" >> $R/gpu_all.txt
tar -czf $OUT/res_d.tgz -C /tmp res_d
