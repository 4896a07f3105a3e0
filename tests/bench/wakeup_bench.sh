#!/usr/bin/env bash
# What a thread wake-up costs on this machine, and what the produce path pays for it: one
# run, builds and settings side by side.
#   * loopback_rtt: a ping-pong of 1,100-byte messages between two processes over
#     loopback TCP, both blocking in read (`blocking`), both polling (`polling`), and
#     blocking while two nice-19 busy loops keep every CPU awake (`cpus_awake`); p50 and
#     p99 in us. The difference between the first and the others is the cost of waking a
#     thread whose CPU was idle.
#   * for each VARIANT, a fresh 3-node combined cluster (strata-cluster) with one
#     partition RF 3 (min.insync.replicas 2): idle_cpu_ms_per_s (the nodes' CPU per second
#     over WINDOW seconds with nothing produced), then strata-perf produce --acks -1 one
#     record at a time (SYNC records, 1 KiB; p50 / p99 ms), with its defaults (RECORDS
#     records, 16 KiB batches, 5 in flight; records/s) and, when rdkafka_performance is
#     found (RDKAFKA_PERF, default /tmp/peerbench/rdkperf/rdkafka_performance, as built by
#     ../shared/bench/sidebyside.sh), librdkafka's defaults with linger.ms=5 (MB/s).
# VARIANTS (default "default poll0"): a word per variant, `NAME[:BIN_DIR][:key=value,...]`:
# BIN_DIR a build's tools directory (default: BIN_DIR below), the settings given to every
# node (--override). `poll0:` + `:network.idle.poll.us=0`, say. ROUNDS (default 1) repeats
# the variants in turn. Prints one `RESULT` line per figure.
# Usage: tests/bench/wakeup_bench.sh BIN_DIR STRATA_CLUSTER
set -euo pipefail
BIN=$(cd "${1:?build/tools}" && pwd); CLUSTER=${2:?tools/strata-cluster}
VARIANTS=${VARIANTS:-"default poll0::network.idle.poll.us=0"}
ROUNDS=${ROUNDS:-1}; WINDOW=${WINDOW:-10}; SYNC=${SYNC:-5000}; RECORDS=${RECORDS:-200000}
RK=${RDKAFKA_PERF:-/tmp/peerbench/rdkperf/rdkafka_performance}
WORK=$(mktemp -d /tmp/wakeup_bench.XXXXXX)
DIR=$WORK/cluster
cleanup() { STRATA_BIN_DIR=$BIN "$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT

# --- loopback ping-pong
cat > "$WORK/rtt.c" <<'C'
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
static int poll_mode;
static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
static void read_all(int fd, char* b, int n) {
  for (int got = 0; got < n;) {
    int r = poll_mode ? recv(fd, b + got, n - got, MSG_DONTWAIT) : read(fd, b + got, n - got);
    if (r == 0 || (r < 0 && !poll_mode)) exit(0);
    if (r > 0) got += r;
  }
}
int main(int argc, char** argv) {
  poll_mode = argc > 1 && strcmp(argv[1], "polling") == 0;
  const int n = 5000, size = 1100, one = 1;
  char buf[4096]; memset(buf, 1, sizeof buf);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(listener, (void*)&a, sizeof a) || listen(listener, 1) || getsockname(listener, (void*)&a, &len)) return 1;
  if (fork() == 0) {
    int c = accept(listener, 0, 0); setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (;;) { read_all(c, buf, size); if (write(c, buf, 64) != 64) return 0; }
  }
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, (void*)&a, sizeof a)) return 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  double* v = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) {
    double t = now_us();
    if (write(s, buf, size) != size) return 1;
    read_all(s, buf, 64);
    v[i] = now_us() - t;
  }
  qsort(v, n, sizeof(double), cmp);
  printf("p50_us=%.1f p99_us=%.1f\n", v[n / 2], v[n * 99 / 100]);
  return 0;
}
C
gcc -O2 -o "$WORK/rtt" "$WORK/rtt.c"
echo "RESULT loopback_rtt mode=blocking $("$WORK/rtt" blocking)"
echo "RESULT loopback_rtt mode=polling $("$WORK/rtt" polling)"
nice -n 19 bash -c 'while :; do :; done' & spin1=$!
nice -n 19 bash -c 'while :; do :; done' & spin2=$!
echo "RESULT loopback_rtt mode=cpus_awake $("$WORK/rtt" blocking)"
kill $spin1 $spin2; wait $spin1 $spin2 2>/dev/null || true

field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" | head -1; }
cpu_ticks() { for p in "$@"; do awk '{print $14 + $15}' /proc/$p/stat; done | paste -sd+ | bc; }

run_variant() {
  local spec=$1 name bin settings
  IFS=: read -r name bin settings <<<"$spec"
  bin=${bin:-$BIN}
  local overrides=()
  if [ -n "$settings" ]; then
    IFS=, read -ra kv <<<"$settings"
    for s in "${kv[@]}"; do overrides+=(--override "$s"); done
  fi
  rm -rf "$DIR"
  STRATA_BIN_DIR=$bin "$CLUSTER" up --dir "$DIR" --combined 3 "${overrides[@]}" >"$WORK/up.log" 2>&1 || { tail -5 "$WORK/up.log"; exit 1; }
  local bootstrap; bootstrap=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
  export STRATA_BOOTSTRAP_CONTROLLER; STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
  "$bin/strata" topics create wakeup --partitions 1 --replication-factor 3 --config min.insync.replicas=2 >/dev/null
  local pids; pids=$(cat "$DIR"/node-*/pid)
  # Settled when the partition's ISR is full.
  for _ in $(seq 1 100); do
    "$bin/strata" topics describe wakeup 2>/dev/null | awk '$1=="wakeup" && $6 ~ /^[0-9]+,[0-9]+,[0-9]+$/ {ok=1} END {exit !ok}' && break
    sleep 0.1
  done
  local a b; a=$(cpu_ticks $pids); sleep "$WINDOW"; b=$(cpu_ticks $pids)
  local hz; hz=$(getconf CLK_TCK)
  echo "RESULT wakeup variant=$name idle_cpu_ms_per_s=$(( (b - a) * 1000 / hz / WINDOW ))"
  local out
  out=$("$bin/strata-perf" produce --bootstrap-server "$bootstrap" --topic wakeup --num-records "$SYNC" --record-size 1024 \
        --acks -1 --max-in-flight 1 --batch-size 1024 --json | tail -1)
  echo "RESULT wakeup variant=$name one_at_a_time_p50_ms=$(field p50_ms <<<"$out") p99_ms=$(field p99_ms <<<"$out")"
  out=$("$bin/strata-perf" produce --bootstrap-server "$bootstrap" --topic wakeup --num-records "$RECORDS" --record-size 1024 \
        --acks -1 --json | tail -1)
  echo "RESULT wakeup variant=$name batched_records_per_s=$(field records_per_s <<<"$out" | cut -d. -f1)"
  if [ -x "$RK" ]; then
    out=$(timeout 180 "$RK" -P -t wakeup -b "$bootstrap" -s 1024 -c "$RECORDS" -X acks=all -X linger.ms=5 2>&1 \
          | grep -o '[0-9.]* MB/s' | tail -1)
    echo "RESULT wakeup variant=$name rdkafka_MBps=${out% MB/s}"
  fi
  STRATA_BIN_DIR=$bin "$CLUSTER" down --dir "$DIR" >/dev/null 2>&1
}

for _ in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do run_variant "$v"; done
done
