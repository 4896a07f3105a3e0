#!/usr/bin/env bash
# Compatibility: kcat (Debian's, on librdkafka 2.0) produces to and consumes from a Strata
# cluster of one controller and three brokers; the topics have replication factor 1, their
# partitions spread over the brokers, so the client routes to three leaders.
#  * kcat -P sends 100,000 keyed messages to 6 partitions in two runs (the second with
#    lz4 compression and record headers); values are short, empty, long (~20 KB) or hold
#    every byte but \t and \n. kcat -C -e -o beginning reads back each message exactly
#    once, byte-identical, with its headers, in production order per partition (the key
#    numbers rise with the offset), offsets contiguous from 0; ListOffsets (kcat -Q) gives
#    each partition's log start 0 and end offset.
#  * Timestamps (kcat -P cannot set them, so they come from reading back): for a timestamp
#    inside the first run and one just after it, kcat -Q (ListOffsets by timestamp) and
#    kcat -C -o s@TS start every partition at its first offset with a timestamp >= TS
#    (or at the end when there is none).
#  * The same records come back with fetch limits smaller than a batch; a consumer
#    waiting at the end of a partition in a 120 s long poll gets new messages before that
#    wait could have run out (the produce wakes its parked Fetch).
#  * A topic with message.timestamp.type=LogAppendTime: kcat shows tstype logappend and
#    broker times taken while the produce ran.
# Usage: kcat_produce_consume_test.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
command -v kcat >/dev/null || { echo "kcat is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
PY=/usr/bin/python3
S="$STRATA_BIN_DIR/strata"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-kcat-pc-test.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; "$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
now_ms() { date +%s%3N; }

"$CLUSTER" up --dir "$DIR" --controllers 1 --brokers 3 >/dev/null
export STRATA_BOOTSTRAP_CONTROLLER=$(sed -n 's/^bootstrap.controllers=//p' "$DIR/cluster.env")
BS=$(sed -n 's/^bootstrap.servers=//p' "$DIR/cluster.env")
"$S" topics create records --partitions 6 --replication-factor 1 >/dev/null
"$S" topics create appended --partitions 3 --replication-factor 1 --config message.timestamp.type=LogAppendTime >/dev/null
leaders=$("$S" topics describe records -o json | jq -c '[.[0].partitions[].leader] | unique')
[[ "$leaders" == "[2,3,4]" ]] || fail "records' partitions should be led by all three brokers, are by $leaders"

# Messages "key-N<TAB>value" for N in [first, last); every byte but \t and \n in some values.
generate() {
  "$PY" - "$1" "$2" <<'EOF'
import sys
out = sys.stdout.buffer
every_byte = bytes(b for b in range(256) if b not in (9, 10))
for n in range(int(sys.argv[1]), int(sys.argv[2])):
    if n % 997 == 0:
        value = (b"long-%d-" % n) * 2000
    elif n % 101 == 0:
        value = b""
    elif n % 7 == 0:
        value = b"bytes-%d-" % n + every_byte
    else:
        value = b"value-%d" % n
    out.write(b"key-%d\t%s\n" % (n, value))
EOF
}
N=100000
generate 0 $((N / 2)) >"$DIR/first.in"
generate $((N / 2)) $N >"$DIR/second.in"
timeout 60 kcat -P -b "$BS" -t records -K '\t' -l "$DIR/first.in" 2>"$DIR/produce1.err" || fail "kcat -P (first half) exited $?: $(head -5 "$DIR/produce1.err")"
timeout 60 kcat -P -b "$BS" -t records -K '\t' -z lz4 -H trace=second-half -H empty= -l "$DIR/second.in" \
  2>"$DIR/produce2.err" || fail "kcat -P (second half) exited $?: $(head -5 "$DIR/produce2.err")"
if grep -qi "fail\|error" "$DIR/produce1.err" "$DIR/produce2.err"; then fail "kcat -P reported: $(grep -hi "fail\|error" "$DIR"/produce*.err | head -5)"; fi

# Read everything back: partition, offset, timestamp, headers, key, value.
timeout 60 kcat -C -b "$BS" -t records -e -q -o beginning -f '%p\t%o\t%T\t%h\t%k\t%s\n' >"$DIR/records.out" ||
  fail "kcat -C exited $?"
# Small fetch limits: the broker still returns each partition's first batch whole when it
# is bigger (KIP-74), so the same records come back, in many more Fetch round trips.
timeout 60 kcat -C -b "$BS" -t records -e -q -o beginning -X fetch.message.max.bytes=4096 -X message.max.bytes=8192 \
  -X fetch.max.bytes=8192 -f '%p\t%o\t%T\t%h\t%k\t%s\n' >"$DIR/small-fetches.out" || fail "kcat -C with small fetches exited $?"
cmp -s <(LC_ALL=C sort "$DIR/records.out") <(LC_ALL=C sort "$DIR/small-fetches.out") ||
  fail "with small fetch limits kcat read $(wc -l <"$DIR/small-fetches.out") lines, not the same $(wc -l <"$DIR/records.out")"

# ListOffsets for every partition at once (kcat -Q): "partition offset" lines.
list_offsets() {  # list_offsets TIMESTAMP
  local args=() p
  for p in 0 1 2 3 4 5; do args+=(-t "records:$p:$1"); done
  timeout 60 kcat -Q -b "$BS" "${args[@]}" </dev/null | sed -n 's/.*\[\([0-9]*\)\] offset \(-\{0,1\}[0-9]*\)$/\1 \2/p' | sort -n
}
# Each partition's log start and end offset.
join <(list_offsets -2) <(list_offsets -1) >"$DIR/ends"

# Checks the read-back records against the input and ListOffsets' ends; writes the
# timestamps to look up (one inside the first half, one past it) to $DIR/lookups and, per
# timestamp and partition, "timestamp partition first-offset-at-or-after count" to
# $DIR/expected.
"$PY" - "$DIR" $N <<'EOF' || fail "the records read back (above)"
import collections, sys
d, n_total = sys.argv[1], int(sys.argv[2])
problems = []
def problem(what):
    if len(problems) < 20:
        print("  " + what, file=sys.stderr)
    problems.append(what)

want = {}
for name in ("first.in", "second.in"):
    with open(f"{d}/{name}", "rb") as f:
        for line in f.read().split(b"\n")[:-1]:
            key, value = line.split(b"\t", 1)
            want[key] = value
partitions = collections.defaultdict(list)  # p -> [(offset, ts, n)]
seen = set()
with open(f"{d}/records.out", "rb") as f:
    for line in f.read().split(b"\n")[:-1]:
        p, offset, ts, headers, key, value = line.split(b"\t", 5)
        n = int(key[4:])
        if key in seen:
            problem(f"{key!r} read twice")
        seen.add(key)
        if key not in want:
            problem(f"{key!r} was never produced")
        elif want[key] != value:
            problem(f"{key!r}: value {value[:60]!r}... ({len(value)} bytes), produced {want[key][:60]!r}... ({len(want[key])} bytes)")
        want_headers = b"trace=second-half,empty=" if n >= n_total // 2 else b""
        if headers != want_headers:
            problem(f"{key!r}: headers {headers!r}, produced {want_headers!r}")
        partitions[int(p)].append((int(offset), int(ts), n))
missing = sorted(set(want) - seen)
if missing:
    problem(f"{len(missing)} messages not read back, e.g. {missing[:5]}")
ends = {int(p): (int(s), int(e)) for p, s, e in (l.split() for l in open(f"{d}/ends"))}
for p in range(6):
    recs = partitions.get(p, [])
    if not recs:
        problem(f"partition {p} holds no messages")
        continue
    offsets = [o for o, _, _ in recs]
    if offsets != list(range(len(recs))):
        gaps = [(a, b) for a, b in zip([-1] + offsets, offsets) if b != a + 1]
        problem(f"partition {p}: offsets not contiguous from 0, first jumps {gaps[:5]}")
    ns = [n for _, _, n in recs]
    disorder = [(offsets[i], ns[i], ns[i + 1]) for i in range(len(ns) - 1) if ns[i] >= ns[i + 1]]
    if disorder:
        problem(f"partition {p}: not in production order at (offset, N, next N) {disorder[:5]}")
    if ends.get(p) != (0, len(recs)):
        problem(f"partition {p}: ListOffsets gives start/end {ends.get(p)}, read {len(recs)} messages from 0")

# Timestamps to look up: the one of the message a third into partition 0 (inside the
# first half), and one past the first half's newest.
first_half = [ts for recs in partitions.values() for _, ts, n in recs if n < n_total // 2]
if partitions.get(0) and first_half:
    lookups = [partitions[0][len(partitions[0]) // 3][1], max(first_half) + 1]
    with open(f"{d}/lookups", "w") as f, open(f"{d}/expected", "w") as e:
        for ts in lookups:
            f.write(f"{ts}\n")
            for p in range(6):
                first = next((o for o, t, _ in partitions[p] if t >= ts), -1)
                e.write(f"{ts} {p} {first} {len(partitions[p])}\n")
print(f"read {len(seen)} messages; per partition {[len(partitions[p]) for p in range(6)]}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

# ListOffsets by timestamp (kcat -Q) and consuming from a timestamp (kcat -o s@TS).
if [[ -f "$DIR/expected" ]]; then
  while read -r ts; do
    got=$(list_offsets "$ts" | tr '\n' ' ') || true
    want=$(awk -v ts="$ts" '$1 == ts { printf "%s %s ", $2, $3 }' "$DIR/expected")
    [[ "$got" == "$want" ]] || fail "kcat -Q at $ts gave (partition offset) '$got', the first offsets with a timestamp >= $ts are '$want'"
  done <"$DIR/lookups"
  while read -r ts; do
    timeout 60 kcat -C -b "$BS" -t records -e -q -o "s@$ts" -f '%p %o\n' </dev/null >"$DIR/from-ts.out" || fail "kcat -C -o s@$ts exited $?"
    while read -r t p first count; do
      [[ "$t" == "$ts" ]] || continue
      got_first=$(awk -v p="$p" '$1 == p { print $2; exit }' "$DIR/from-ts.out")
      got_count=$(awk -v p="$p" '$1 == p { n++ } END { print n + 0 }' "$DIR/from-ts.out")
      if (( first < 0 )); then want_first=""; want_count=0; else want_first=$first; want_count=$((count - first)); fi
      [[ "$got_first" == "$want_first" && "$got_count" == "$want_count" ]] ||
        fail "kcat -o s@$ts partition $p: started at '${got_first}' and read $got_count, expected '${want_first}' and $want_count"
    done <"$DIR/expected"
  done <"$DIR/lookups"
else
  fail "no timestamps to look up (the read-back check failed)"
fi

# A consumer parked at the end of partition 0 in a long poll gets new messages as soon as
# they are written, not when its wait runs out: its wait (fetch.wait.max.ms, 120 s) is
# twice the 60 s it is given to read them, so it reads them only if the produce woke its
# parked Fetch. The produce starts once the consumer says (its fetch debug log) that it
# sent its Fetch at the partition's end.
end0=$(awk '$1 == 0 { print $3 }' "$DIR/ends")
timeout 60 kcat -C -b "$BS" -t records -p 0 -o "$end0" -c 100 -q -X fetch.wait.max.ms=120000 \
  -X socket.timeout.ms=130000 -d fetch -f '%o %k\n' >"$DIR/parked.out" 2>"$DIR/parked.err" </dev/null &
parked=$!
fetch_sent() { grep -q "Fetch topic records \[0\] at offset $end0 " "$DIR/parked.err"; }
wait_for_fetch() {  # polls fetch_sent for up to 30 s
  local deadline=$(( $(date +%s) + 30 ))
  until fetch_sent; do
    (( $(date +%s) < deadline )) || return 1
    sleep 0.05  # polling a condition with a deadline
  done
}
wait_for_fetch || fail "the consumer did not log a Fetch of records [0] at offset $end0: $(grep -i fetch "$DIR/parked.err" | tail -3)"
generate $N $((N + 100)) | timeout 60 kcat -P -b "$BS" -t records -p 0 -K '\t' || fail "kcat -P -p 0 exited $?"
rc=0
wait "$parked" || rc=$?
(( rc == 0 )) || fail "the parked consumer exited $rc (124: it did not get the new messages while its Fetch was parked): $(grep -v "FETCH\|^%7" "$DIR/parked.err" | head -3)"
want=$(for ((i = 0; i < 100; i++)); do echo "$((end0 + i)) key-$((N + i))"; done)
[[ "$(cat "$DIR/parked.out")" == "$want" ]] || fail "the parked consumer read: $(head -3 "$DIR/parked.out")..., expected $end0 key-$N..."

# LogAppendTime: the broker stamps the batches while the produce runs.
before=$(now_ms)
generate 0 3000 | timeout 60 kcat -P -b "$BS" -t appended -K '\t' 2>"$DIR/produce3.err" || fail "kcat -P appended exited $?: $(head -5 "$DIR/produce3.err")"
after=$(now_ms)
timeout 60 kcat -C -b "$BS" -t appended -e -q -o beginning -J >"$DIR/appended.json" || fail "kcat -C appended exited $?"
summary=$(jq -s -c --argjson lo "$before" --argjson hi "$after" '{count: length, types: ([.[].tstype] | unique),
  outside: [.[] | select(.ts < $lo or .ts > $hi) | {partition, offset, ts}][:5]}' "$DIR/appended.json")
[[ $(jq -c '[.count, .types, .outside]' <<<"$summary") == '[3000,["logappend"],[]]' ]] ||
  fail "LogAppendTime topic read back as $summary; produced 3000 between $before and $after"

if (( failures > 0 )); then exit 1; fi
echo "kcat produce/consume test passed"
