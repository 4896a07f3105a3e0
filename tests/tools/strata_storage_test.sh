#!/usr/bin/env bash
# Integration test of the strata-storage CLI: smoke writes a log through LogManager,
# verify accepts it (and changes nothing), dump shows every kind of file, and verify
# and dump reject a log with one corrupted byte or a cut-off tail; format writes a
# static or a dynamic quorum's controller's identity and initial voters.
# Usage: strata_storage_test.sh <path to strata-storage>
set -euo pipefail

BIN=${1:?usage: $0 <strata-storage binary>}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/strata-storage-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
# run <expected exit code> <output file> <args...>: runs the binary, keeps stdout+stderr.
run() {
  local want=$1 out=$2
  shift 2
  local rc=0
  "$BIN" "$@" >"$out" 2>&1 || rc=$?
  if [[ $rc -ne $want ]]; then
    fail "strata-storage $* exited $rc, expected $want; output:"
    sed 's/^/    /' "$out" >&2
  fi
}
# expect <file> <extended regex>...: every pattern must match some line of file.
expect() {
  local file=$1
  shift
  for pattern in "$@"; do
    grep -Eq -- "$pattern" "$file" || fail "$(basename "$file"): no line matches /$pattern/"
  done
}

DATA=$TMP/not/yet/there/data  # smoke must create missing parents, as the README's main command needs
P=$DATA/smoke-0
SEG0=$P/00000000000000000000

echo "== smoke"
# 3000 records of 1 KiB in 16 KiB batches with 1 MiB segments: 3 segments.
run 0 "$TMP/smoke.out" smoke --dir "$DATA" --records 3000 --record-bytes 1024 --segment-bytes 1048576
cat "$TMP/smoke.out"
expect "$TMP/smoke.out" '^append: .* MB/s' '^read: .* MB/s' '^reopen: .* 0 recovered, 0 indexes rebuilt' \
  '^records verified: 6000 ' '^OK$'
segments=$(ls "$P"/*.log | wc -l)
[[ $segments -ge 3 ]] || fail "expected at least 3 segments, found $segments"

echo "== smoke again on the same dir (the existing log is emptied first)"
run 0 "$TMP/smoke2.out" smoke --dir "$DATA" --records 3000 --record-bytes 1024 --segment-bytes 1048576
expect "$TMP/smoke2.out" '^emptying the existing smoke-0' '^OK$'

echo "== verify"
before=$(cd "$DATA" && find . -type f | sort | xargs sha256sum)
run 0 "$TMP/verify.out" verify "$P"
run 0 "$TMP/dump-verify.out" dump --verify "$P"
cat "$TMP/verify.out"
expect "$TMP/verify.out" "^OK: $segments segments, offsets \[0, 3000\), [0-9]+ batches$"
run 0 "$TMP/verify-deep.out" verify --deep "$P/"
expect "$TMP/verify-deep.out" '^OK: '
after=$(cd "$DATA" && find . -type f | sort | xargs sha256sum)
[[ "$before" == "$after" ]] || fail "verify changed files in the log dir"

echo "== dump"
run 0 "$TMP/dump-log.out" dump "$SEG0.log"
expect "$TMP/dump-log.out" \
  '^baseOffset: 0 lastOffset: 15 count: 16 .*partitionLeaderEpoch: 0 .*isTransactional: false isControl: false compression: none .*position: 0 size: [0-9]+ .*crcValid: true$' \
  'producerId: -1 producerEpoch: -1' 'maxTimestamp: [0-9]+' '^batches: [0-9]+ records: [0-9]+ '
run 0 "$TMP/dump-records.out" dump --records "$SEG0.log"
expect "$TMP/dump-records.out" '^\| offset: 0 timestamp: [0-9]+ .*key: key-0 value: 00000000000000000000\|abc' \
  '^\| offset: 15 '
run 0 "$TMP/dump-index.out" dump "$SEG0.index"
expect "$TMP/dump-index.out" '^offset: 31 position: [0-9]+$'
run 0 "$TMP/dump-timeindex.out" dump "$SEG0.timeindex"
expect "$TMP/dump-timeindex.out" '^timestamp: [0-9]+ offset: [0-9]+$'
run 0 "$TMP/dump-checkpoints.out" dump "$DATA/recovery-point-offset-checkpoint" "$DATA/log-start-offset-checkpoint" \
  "$DATA/replication-offset-checkpoint" "$P/leader-epoch-checkpoint" "$DATA/meta.properties"
expect "$TMP/dump-checkpoints.out" '^topic: smoke partition: 0 offset: 3000$' '^topic: smoke partition: 0 offset: 0$' \
  '^epoch: 0 startOffset: 0$' '^clusterId: strata-smoke nodeId: 1 '
# A cleaner checkpoint at the second segment's base: the first segment counts as clean,
# the rolled ones after it as dirty (the active segment never), and a log the checkpoint
# names but the dir lacks shows as absent.
second=$(ls "$P"/*.log | sed -n 2p | xargs basename | sed 's/\.log$//; s/^0*//')
printf '0\n2\nsmoke 0 %s\ngone 3 7\n' "$second" > "$DATA/cleaner-offset-checkpoint"
seg0_bytes=$(stat -c %s "$SEG0.log")
run 0 "$TMP/dump-cleaner.out" dump "$DATA/cleaner-offset-checkpoint"
cat "$TMP/dump-cleaner.out"
expect "$TMP/dump-cleaner.out" \
  "^topic: smoke partition: 0 checkpoint: $second firstDirtyOffset: $second cleanBytes: $seg0_bytes dirtyBytes: [1-9][0-9]* dirtyRatio: 0\.[0-9]{3}$" \
  '^topic: gone partition: 3 checkpoint: 7 log: absent$'
rm "$DATA/cleaner-offset-checkpoint"
run 0 "$TMP/dump-snapshot.out" dump "$P/00000000000000003000.snapshot"
expect "$TMP/dump-snapshot.out" '^snapshotOffset: 3000 producers: 0$'
run 0 "$TMP/dump-json.out" dump --output json --records "$SEG0.log" "$SEG0.index"
expect "$TMP/dump-json.out" '^\{"type":"batch",.*"baseOffset":0,.*"crcValid":true\}$' \
  '^\{"type":"record",.*"offset":0,' '^\{"type":"entry",.*"offset":31,'
# jq comes with scripts/install-deps.sh.
jq -e . "$TMP/dump-json.out" >/dev/null || fail "dump --output json printed invalid JSON"
run 2 "$TMP/dump-unknown.out" dump "$TMP/whatever.txt"
run 2 "$TMP/dump-missing.out" dump "$TMP/00000000000000000000.log"

echo "== preallocated index tail (as after an unclean shutdown) is not a problem"
cp -a "$DATA" "$TMP/prealloc"
truncate -s +4096 "$TMP/prealloc/smoke-0/00000000000000000000.index"
run 0 "$TMP/verify-prealloc.out" verify "$TMP/prealloc/smoke-0"
run 0 "$TMP/dump-prealloc.out" dump "$TMP/prealloc/smoke-0/00000000000000000000.index"
expect "$TMP/dump-prealloc.out" '^Note: skipped 512 trailing all-zero'

echo "== one corrupted byte in the middle of a batch"
cp -a "$DATA" "$TMP/corrupt"
log=$TMP/corrupt/smoke-0/00000000000000000000.log
# The middle batch of the first segment: flip a byte half-way into it.
read -r position size < <(awk '/^baseOffset:/ { for (i = 1; i < NF; i++) { if ($i == "position:") p = $(i+1);
  if ($i == "size:") s = $(i+1) } ps[n] = p; ss[n++] = s } END { print ps[int(n/2)], ss[int(n/2)] }' "$TMP/dump-log.out")
at=$((position + size / 2))
old=$(od -An -tu1 -j "$at" -N1 "$log" | tr -d ' ')
printf "$(printf '\\%03o' $(((old + 1) % 256)))" | dd of="$log" bs=1 seek="$at" conv=notrunc status=none
run 1 "$TMP/verify-corrupt.out" verify "$TMP/corrupt/smoke-0"
run 1 "$TMP/dump-verify-corrupt.out" dump --verify "$TMP/corrupt/smoke-0"
cat "$TMP/verify-corrupt.out"
expect "$TMP/verify-corrupt.out" "^FAIL: .*00000000000000000000\.log at position $position: CRC mismatch"
run 1 "$TMP/dump-corrupt.out" dump "$log"
expect "$TMP/dump-corrupt.out" "position: $position .*crcValid: false$" "^ERROR: .* at position $position: CRC mismatch"

echo "== a cut-off last batch"
cp -a "$DATA" "$TMP/cut"
last=$(ls "$TMP/cut/smoke-0"/*.log | sort | tail -1)
truncate -s -100 "$last"
run 1 "$TMP/verify-cut.out" verify "$TMP/cut/smoke-0"
expect "$TMP/verify-cut.out" '^FAIL: .*\.log at position [0-9]+: batch of [0-9]+ bytes is truncated'

echo "== an index entry that does not point at a batch"
cp -a "$DATA" "$TMP/badindex"
printf '\x00\x00\x00\x10\x00\x00\x00\x20' | dd of="$TMP/badindex/smoke-0/00000000000000000000.index" bs=1 seek=0 \
  conv=notrunc status=none
run 1 "$TMP/verify-badindex.out" verify "$TMP/badindex/smoke-0"
expect "$TMP/verify-badindex.out" '^FAIL: .*00000000000000000000\.index entry 0 \(offset 16, position 32\)'

echo "== not a partition directory"
run 2 "$TMP/verify-missing.out" verify "$TMP/no-such-dir"
run 1 "$TMP/verify-logdir.out" verify "$DATA"
expect "$TMP/verify-logdir.out" 'holds no segment file'

echo "== format: static and dynamic quorums (KIP-853)"
CLUSTER=$("$BIN" random-uuid)
F=$TMP/format
mkdir -p "$F"
# props <file> <node id> <quorum line> [listeners]: a controller's server.properties.
props() {
  { echo "node.id=$2"; echo "process.roles=controller"; echo "$3"; echo "metadata.log.dir=$F/meta-$2"
    if [[ -n "${4:-}" ]]; then echo "listeners=$4"; fi; } >"$1"
}
props "$F/static.properties" 1 "controller.quorum.voters=1@127.0.0.1:9093"
run 0 "$TMP/format-static.out" format --cluster-id "$CLUSTER" --config "$F/static.properties"
[[ ! -e "$F/meta-1/bootstrap-voters.json" ]] || fail "a static quorum's controller got bootstrap-voters.json"
run 2 "$TMP/format-static-standalone.out" format --cluster-id "$CLUSTER" --config "$F/static.properties" --standalone
expect "$TMP/format-static-standalone.out" 'this one is static \(controller.quorum.voters\)'

props "$F/d2.properties" 2 "controller.quorum.bootstrap.servers=127.0.0.1:9094" "CONTROLLER://127.0.0.1:9094"
run 2 "$TMP/format-dynamic-none.out" format --cluster-id "$CLUSTER" --config "$F/d2.properties"
expect "$TMP/format-dynamic-none.out" 'needs one of --standalone .* --initial-controllers .* --no-initial-controllers'
[[ ! -e "$F/meta-2" ]] || fail "a refused format wrote $F/meta-2"
run 2 "$TMP/format-dynamic-two.out" format --cluster-id "$CLUSTER" --config "$F/d2.properties" --standalone \
  --no-initial-controllers
run 0 "$TMP/format-standalone.out" format --cluster-id "$CLUSTER" --config "$F/d2.properties" --standalone
DIR2=$(sed -n 's/^directory.id=//p' "$F/meta-2/meta.properties")
expect "$TMP/format-standalone.out" "Initial voters of the dynamic quorum: voter 2 .*CONTROLLER://127.0.0.1:9094"
grep -q "\"directory_id\": \"$DIR2\"" "$F/meta-2/bootstrap-voters.json" ||
  fail "--standalone's voter does not carry the directory's id $DIR2: $(cat "$F/meta-2/bootstrap-voters.json")"
run 0 "$TMP/format-standalone-again.out" format --cluster-id "$CLUSTER" --config "$F/d2.properties" --standalone

# --initial-controllers: the directory gets the id the list names; the list must name
# this node at its advertised controller listener.
D3=$("$BIN" random-uuid); D4=$("$BIN" random-uuid)
INITIAL="3@127.0.0.1:9095:$D3,4@127.0.0.1:9096:$D4"
props "$F/d3.properties" 3 "controller.quorum.bootstrap.servers=127.0.0.1:9095" "CONTROLLER://127.0.0.1:9095"
run 0 "$TMP/format-initial.out" format --cluster-id "$CLUSTER" --config "$F/d3.properties" --initial-controllers "$INITIAL"
expect "$F/meta-3/meta.properties" "^directory.id=$D3\$"
expect "$F/meta-3/bootstrap-voters.json" "\"directory_id\": \"$D3\"" "\"directory_id\": \"$D4\"" '"port": 9096'
run 1 "$TMP/format-initial-other.out" format --cluster-id "$CLUSTER" --config "$F/d3.properties" \
  --initial-controllers "3@127.0.0.1:9095:$D3"
expect "$TMP/format-initial-other.out" 'already names other initial voters'
props "$F/d5.properties" 5 "controller.quorum.bootstrap.servers=127.0.0.1:9095" "CONTROLLER://127.0.0.1:9097"
run 2 "$TMP/format-initial-absent.out" format --cluster-id "$CLUSTER" --config "$F/d5.properties" --initial-controllers "$INITIAL"
expect "$TMP/format-initial-absent.out" 'does not name node.id 5 \(use --no-initial-controllers'
run 2 "$TMP/format-initial-address.out" format --cluster-id "$CLUSTER" --config "$F/d5.properties" \
  --initial-controllers "5@127.0.0.1:9098:$("$BIN" random-uuid)"
expect "$TMP/format-initial-address.out" 'names 127.0.0.1:9098 for node 5, but its controller listener CONTROLLER is advertised as 127.0.0.1:9097'
run 2 "$TMP/format-initial-bad.out" format --cluster-id "$CLUSTER" --config "$F/d5.properties" --initial-controllers "5@127.0.0.1:9097"
expect "$TMP/format-initial-bad.out" "initial controller '5@127.0.0.1:9097' has no valid directory id"
run 0 "$TMP/format-later.out" format --cluster-id "$CLUSTER" --config "$F/d5.properties" --no-initial-controllers
[[ ! -e "$F/meta-5/bootstrap-voters.json" ]] || fail "--no-initial-controllers wrote bootstrap-voters.json"

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all strata-storage checks passed"
