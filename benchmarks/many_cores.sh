#!/usr/bin/env bash
# Issue 32's figures on a many-core machine, in one go (sized for about 7 minutes on 16 quiet cores),
# each benchmark side by side with what it is compared to, the load before and after:
#   dealer_core.py  the dealer's CPU per heads-up hand (gRPC; target <= 60 us);
#   vs_acpc.py      the ACPC dealer built from source beside ours on --workers = the cores: the same
#                   C call bots (target >= 5x), our Python call bots (>= 3x), random bots;
#   workers.py      one match's hands/s on 1, 2, 4, ... worker processes, the same results;
#   league.py       the 28-match league of 8 bots with jobs 1 and jobs = the cores (target >= 8x).
# Usage, in the checkout: benchmarks/many_cores.sh [OUT]   (OUT: where figures.txt goes, default /tmp/many-cores)
#   PY        the Python of an installed, compiled dealer (default .venv/bin/python: `make setup`);
#   ACPC_SRC  a checkout of project_acpc_server (Liuweiming/project_acpc_server), built by vs_acpc.py;
#   SMALL=1   a try at a hundredth of the hands, to check the script on a small machine first.
# Every benchmark refuses its figure when a bot faulted; a step that fails or runs past its limit
# is marked in figures.txt and the next one runs.
set -u
PY=${PY:-.venv/bin/python}
OUT=${1:-/tmp/many-cores}
CORES=$(nproc)
mkdir -p "$OUT"
if [ "${SMALL:-0}" = 1 ]; then scale=100; league_hands=20; else scale=1; league_hands=400; fi
n() { echo $(($1 / scale)); }

step() {  # step SECONDS COMMAND...: one benchmark under a wall limit, its exit status said
    local limit=$1
    shift
    echo "## $* (load $(cut -d' ' -f1-3 /proc/loadavg))"
    timeout "$limit" nice -n 0 "$@"
    local status=$?
    [ $status = 0 ] || echo "## FAILED with status $status (124: past its ${limit}s limit)"
}

{
    echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null) on $CORES cores, $(uname -r), $($PY -V 2>&1)"
    step 120 "$PY" benchmarks/dealer_core.py --hands "$(n 20000)" --repeats 3
    step 150 "$PY" benchmarks/vs_acpc.py --acpc-src "${ACPC_SRC:?ACPC_SRC: a checkout of project_acpc_server}" \
        --cache "$OUT/acpc" --hands "$(n 65536)" --tables 64 --py-tables 256 --repeats 1 --workers "$CORES"
    workers=1
    while [ $((workers * 2)) -le "$CORES" ]; do workers="$workers,$((${workers##*,} * 2))"; done
    step 150 "$PY" benchmarks/workers.py --hands "$(n 200000)" --tables 64 --workers "$workers" --repeats 1
    step 120 "$PY" benchmarks/league.py --bots 8 --hands "$league_hands" --pool-jobs "1,$CORES" --repeats 1
    echo "# done, load $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$OUT/figures.txt"
