#!/usr/bin/env bash
# Voter-change figures of a dynamic quorum (KIP-853) with real processes (strata-cluster
# up --dynamic: 3 controllers, 1 broker), each round against the time of a one-partition
# CreateTopics (a metadata commit, the baseline) in the same run:
#   * add-voter of a new controller (--no-initial-controllers): the catch-up and the
#     commit, with PARTITIONS partitions in the metadata image (default 0);
#   * remove-voter of a follower;
#   * remove-voter of the leader, then until a remaining voter accepts a CreateTopics
#     (the removed leader steps down once the removal commits; the others wait out an
#     election timeout, controller.quorum.election.timeout.ms).
# With SNAPSHOT_BYTES set (metadata.log.max.record.bytes.between.snapshots of every
# controller), the PARTITIONS are made as two topics, each over that many bytes of log:
# the leader's second snapshot compacts its log to its first, and the new controller
# catches up through InstallSnapshot: each round says how (snapshot or log) and the
# snapshots' size.
# ROUNDS rounds (default 3), each in a fresh cluster; prints every round and the medians.
# Prints figures only. Usage: quorum_change_bench.sh <bin dir> <strata-cluster>
set -euo pipefail
export STRATA_BIN_DIR=${1:?usage: $0 <bin dir> <strata-cluster>}
CLUSTER=${2:?}
S="$STRATA_BIN_DIR/strata"
ROUNDS=${ROUNDS:-3}
PARTITIONS=${PARTITIONS:-0}
OVERRIDE=()
[[ -n "${SNAPSHOT_BYTES:-}" ]] && OVERRIDE=(--override "metadata.log.max.record.bytes.between.snapshots=$SNAPSHOT_BYTES")
DIR=""
trap '[[ -n "$DIR" ]] && { "$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"; }' EXIT
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

declare -a base add rmf rml
for round in $(seq 1 "$ROUNDS"); do
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/strata-quorum-bench.XXXXXX")
  "$CLUSTER" up --dir "$DIR" --dynamic --controllers 3 --brokers 1 "${OVERRIDE[@]}" >/dev/null
  cli() { "$S" --bootstrap-controller "$(cat "$DIR/voters")" "$@"; }
  quorum() { cli quorum describe -o json; }
  if [[ -n "${SNAPSHOT_BYTES:-}" ]] && (( PARTITIONS > 1 )); then
    # Two halves, each over the snapshot threshold: the second snapshot compacts the log
    # to the first, so that a new voter needs a snapshot.
    cli topics create image --partitions $(( PARTITIONS / 2 )) --replication-factor 1 >/dev/null
    cli topics create image2 --partitions $(( PARTITIONS - PARTITIONS / 2 )) --replication-factor 1 >/dev/null
  elif (( PARTITIONS > 0 )); then
    cli topics create image --partitions "$PARTITIONS" --replication-factor 1 >/dev/null
  fi
  t=$(date +%s%N); cli topics create "base$round" --partitions 1 --replication-factor 1 >/dev/null
  base+=("$(ms "$t")")
  "$CLUSTER" add-controller --dir "$DIR" 5 "${OVERRIDE[@]}" >/dev/null
  t=$(date +%s%N); cli quorum add-voter --config "$DIR/node-5/server.properties" >/dev/null
  add+=("$(ms "$t")")
  leader=$(quorum | jq .leader_id)
  how="from the log"
  if grep -q "installed snapshot" "$DIR/node-5/server.log"; then
    how="through a snapshot of $(du -sb "$DIR/node-$leader/metadata/snapshots" | cut -f1) bytes (the leader's snapshots dir)"
  fi
  follower=$(quorum | jq --argjson l "$leader" '[.voter_states[].id | select(. != $l and . != 5)][0]')
  dir=$(quorum | jq -r --argjson f "$follower" '.voter_states[] | select(.id == $f) | .directory_id')
  t=$(date +%s%N); cli quorum remove-voter --id "$follower" --directory-id "$dir" >/dev/null
  rmf+=("$(ms "$t")")
  dir=$(quorum | jq -r --argjson l "$leader" '.voter_states[] | select(.id == $l) | .directory_id')
  t=$(date +%s%N); cli quorum remove-voter --id "$leader" --directory-id "$dir" >/dev/null
  i=0
  until cli topics create "after$round-$i" --partitions 1 --replication-factor 1 >/dev/null 2>&1; do
    i=$((i + 1))  # retried until a remaining voter leads
  done
  rml+=("$(ms "$t")")
  echo "round $round: CreateTopics ${base[-1]} ms (baseline); add-voter ${add[-1]} ms ($how); remove follower ${rmf[-1]} ms;" \
       "remove leader -> CreateTopics accepted ${rml[-1]} ms"
  "$CLUSTER" down --dir "$DIR" >/dev/null; rm -rf "$DIR"; DIR=""
done
echo "figure: CreateTopics 1 partition (baseline), median of $ROUNDS: $(printf '%s\n' "${base[@]}" | median) ms"
echo "figure: add-voter ($PARTITIONS partitions in the image), median of $ROUNDS: $(printf '%s\n' "${add[@]}" | median) ms"
echo "figure: remove-voter of a follower, median of $ROUNDS: $(printf '%s\n' "${rmf[@]}" | median) ms"
echo "figure: remove-voter of the leader until a CreateTopics is accepted, median of $ROUNDS:" \
     "$(printf '%s\n' "${rml[@]}" | median) ms"
