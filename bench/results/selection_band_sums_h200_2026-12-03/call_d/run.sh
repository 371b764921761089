#!/usr/bin/env bash
# Call d (2026-12-03, session 7): 2fe01a6 as landed, the build of call c: robustfit_app_tests,
# robustfit_distributed_gpu_tests, `robust-fit select --backend cuda`.
N=d; REPO=$PWD; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
mkdir -p /tmp/app && cp robust-fit /tmp/app/robust-fit
O=/tmp/res_$N; mkdir -p $O; (nvidia-smi -L; date -u) > $O/machine.txt 2>&1
T0=$(date +%s)
save() { tar -czf $OUT/res_$N.tgz -C /tmp res_$N; }
st() { echo "$1 rc $2 at $(($(date +%s)-T0)) s" >> $O/machine.txt; save; }
printf 'v\n3\n1\n2\n5\n4\n' > /tmp/v.csv; (/tmp/app/robust-fit select /tmp/v.csv -c v --median --backend cuda; /tmp/app/robust-fit select /tmp/v.csv -c v --k 1,3 --backend cuda -o json) > $O/cli_select.txt 2>&1; st cli $?
timeout 60 ./robustfit_distributed_gpu_tests > $O/dgpu.txt 2>&1; st dgpu $?
timeout 300 ./robustfit_app_tests > $O/app_tests.txt 2>&1; st app $?
for f in $O/app_tests.txt $O/dgpu.txt; do (grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED TEST|Failure" $f | head -40) > ${f%.txt}_summary.txt; done; save
