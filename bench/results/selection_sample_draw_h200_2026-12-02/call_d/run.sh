#!/usr/bin/env bash
# Call d (2026-12-02): tune-multi at 2^26 (101 and 1001 ranks) and 2^28 (101), floats: the band
# table's ranges and sample against the 1001-rank time.
N=d; tar -xJf .devbin/$N.tar.xz -C /tmp; cd /tmp/$N
export LD_LIBRARY_PATH=/tmp/$N/libs:/usr/local/cuda/lib:/usr/local/cuda/lib64
mkdir -p /tmp/res_d
timeout 200 ./sel --sections tune-multi --sizes 26,28 --types float --runs 5 --out /tmp/res_d/tune_multi.csv > /tmp/res_d/tune_multi.log 2>&1
echo "tune-multi rc $?" >> /tmp/res_d/tune_multi.log
tar -czf $OUT/res_d.tgz -C /tmp res_d
