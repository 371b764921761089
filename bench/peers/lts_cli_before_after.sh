#!/bin/bash
# Times `robust-fit fit FILE -y y --backend cpu -o json` (CSV read included) of two builds on the
# same files, alternating them run by run so that both see the same machine load; default
# search and --subsets 500, three runs each. Prints CSV: wall, user and system seconds and
# peak resident size (/usr/bin/time), the fit's own total and its objective.
# Usage: lts_cli_before_after.sh BEFORE/robust-fit AFTER/robust-fit FILE.csv ... > times.csv
set -euo pipefail
before=$1 after=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u) $(uptime)"
echo "binary,file,search,rep,wall_s,user_s,sys_s,maxrss_kb,fit_total_s,objective"
for f in "$@"; do
  for search in default 500; do
    extra=()
    [ "$search" = 500 ] && extra=(--subsets 500)
    for rep in 1 2 3; do
      for which in before after; do
        binary=$before
        [ "$which" = after ] && binary=$after
        /usr/bin/time -f "%e,%U,%S,%M" -o "$tmp/time" "$binary" fit "$f" -y y --backend cpu -o json "${extra[@]}" > "$tmp/fit.json"
        python3 -c "import json,sys; j = json.load(open(sys.argv[1])); print('$which,$(basename "$f"),$search,$rep,' + open(sys.argv[2]).read().strip() + ',%.4f,%.10g' % (j['timings_s']['total'], j['objective']))" "$tmp/fit.json" "$tmp/time"
      done
    done
  done
done
echo "# $(date -u) $(uptime)"
