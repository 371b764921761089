#!/usr/bin/env bash
# Call b (2026-12-02): call a's tune rows again (their files did not come back), one tarball.
set -u
mkdir -p /tmp/a && tar -xJf .devbin/a.tar.xz -C /tmp
cd /tmp/a
export LD_LIBRARY_PATH=/tmp/a/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
mkdir -p /tmp/res && cd /tmp/a
timeout 150 ./sel --sections tune-bracket --types float,double --sizes 24,26,28 --runs 5 --out /tmp/res/tune_bracket.csv > /tmp/res/tune_bracket.log 2>&1
echo "tune-bracket rc=$?" >> /tmp/res/steps.txt
timeout 60 ./sel --sections tune-radix --types float,double --runs 10 --out /tmp/res/tune_radix.csv > /tmp/res/tune_radix.log 2>&1
echo "tune-radix rc=$?" >> /tmp/res/steps.txt
tar -cJf $OUT/b.tar.xz -C /tmp res
cat /tmp/res/steps.txt
