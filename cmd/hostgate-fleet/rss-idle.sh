#!/bin/bash
# Issue 28 acceptance: the hub's RSS before a fleet of idle agents connects
# and 45 s after all are connected (docs/performance.md, "Idle agents: memory").
#
#   go build -o /tmp/hg/ ./cmd/hostgate ./cmd/hostgate-fleet
#   cmd/hostgate-fleet/rss-idle.sh /tmp/hg 5000 [pg]    # HOLD=120 to watch 2 min more

set -e
BIN=$1; N=${2:-5000}; ENGINE=${3:-sqlite}
W=$(mktemp -d /tmp/hostgate-rss-XXXX)
freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(freeport); MPORT=$(freeport)
export HOSTGATE_DATA_DIR=$W/data HOSTGATE_LOG_LEVEL=warn HOSTGATE_ADMIN_USERNAME=admin HOSTGATE_ADMIN_PASSWORD=benchpassword123 \
  HOSTGATE_AGENT_HANDSHAKE_RATE=5000 HOSTGATE_AGENT_HANDSHAKE_CONCURRENCY=256 \
  HOSTGATE_ADDR=127.0.0.1:$PORT HOSTGATE_PUBLIC_URL=http://127.0.0.1:$PORT HOSTGATE_METRICS_ADDR=127.0.0.1:$MPORT
mkdir -p $W/data
if [ "$ENGINE" = pg ]; then
  DB=hostgate_mem_$RANDOM$RANDOM
  psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $DB"
  export HOSTGATE_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB?sslmode=disable" HOSTGATE_REDIS_URL=redis://127.0.0.1:6379/0 HOSTGATE_REDIS_PREFIX=$DB:
fi
$BIN/hostgate >$W/hub.log 2>&1 &
HUB=$!
trap 'kill $HUB $FL 2>/dev/null; wait $HUB 2>/dev/null; [ -n "$DB" ] && psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"' EXIT
until curl -sf http://127.0.0.1:$PORT/readyz >/dev/null; do sleep 0.2; kill -0 $HUB 2>/dev/null || { cat $W/hub.log; exit 1; }; done
$BIN/hostgate-fleet provision --count $N --out $W/fleet.jsonl >/dev/null
rss() { curl -s "http://127.0.0.1:$MPORT/debug/pprof/heap?gc=1" >/dev/null; sleep 3; awk '/VmRSS/{print $2}' /proc/$HUB/status; }
metric() { curl -s http://127.0.0.1:$MPORT/metrics | awk -v m="$1" '$1==m{print $2}'; }
R0=$(rss)
$BIN/hostgate-fleet run --creds $W/fleet.jsonl --duration 20m --ramp 2000 >$W/fleet.log 2>&1 &
FL=$!
until grep -q all_connected $W/fleet.log; do sleep 1; if ! kill -0 $FL; then cat $W/fleet.log; exit 1; fi; done
sleep 45
R1=$(awk '/VmRSS/{print $2}' /proc/$HUB/status)
R2=$(rss)
echo "engine=$ENGINE agents=$N rss_before_kib=$R0 rss_45s_kib=$R1 growth_mib=$(echo "($R1-$R0)/1024" | bc -l | cut -c1-6) per_agent_kib=$(echo "($R1-$R0)/$N" | bc -l | cut -c1-5) settled_after_gc_per_agent_kib=$(echo "($R2-$R0)/$N" | bc -l | cut -c1-5)"
echo "goroutines=$(metric go_goroutines) stack_inuse=$(metric go_memstats_stack_inuse_bytes) heap_inuse=$(metric go_memstats_heap_inuse_bytes) heap_alloc=$(metric go_memstats_heap_alloc_bytes)"
if [ -n "$HOLD" ]; then sleep $HOLD; echo "after ${HOLD}s more: $(grep -v all_conn $W/fleet.log | tail -1 | cut -c1-300)"; echo "hub: $(curl -s http://127.0.0.1:$MPORT/metrics | grep -i "^hostgate_agents\|^hostgate_.*connected" | head -5 | tr "\n" " ")"; fi
curl -s -o $W/heap.pprof "http://127.0.0.1:$MPORT/debug/pprof/heap"
grep -c '"all_connected"' $W/fleet.log >/dev/null; tail -1 $W/fleet.log | cut -c1-400
echo "workdir $W"
