tar -xJf .devpack/e2.tar.xz -C /tmp; cd /tmp/e2; export LD_LIBRARY_PATH=/tmp/e2/libs
R=/tmp/res_e2; mkdir -p $R; nvidia-smi -L > $R/machine.txt
timeout 450 ./robustfit_gpu_tests > $R/gpu_tests.txt 2>&1; echo "rc=$?" >> $R/gpu_tests.txt
./robustfit_gpu_oom_tests > $R/oom_tests.txt 2>&1; echo "rc=$?" >> $R/oom_tests.txt
timeout 100 mpirun --allow-run-as-root --oversubscribe -np 2 -x NCCL_NVLS_ENABLE=0 ./robustfit_distributed_gpu_tests > $R/dist_np2.txt 2>&1; echo "rc=$?" >> $R/dist_np2.txt
tar -czf $OUT/res_e2.tgz -C /tmp res_e2
