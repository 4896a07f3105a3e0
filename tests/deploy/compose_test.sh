#!/usr/bin/env bash
# deploy/ for real: builds the image with deploy/Dockerfile, runs deploy/docker-compose.yml
# (3 controllers, 3 brokers) with the host-network override so that all traffic stays on
# 127.0.0.1, waits for every container to be healthy, creates an RF 3 tiered topic with
# the strata CLI, produces with acks=all, checks the remote tier on the shared volume,
# kills a broker (docker kill), produces more, consumes everything with kcat and checks
# that every acknowledged record is there exactly once; then stops the rest (SIGTERM must
# end each strata-server with exit code 0). Then the secure variant on fresh volumes
# (docker-compose.secure.yml with deploy/make-secrets.sh's secrets): every container
# healthy, the CLI refused without a certificate and served with the admin's, the admin's
# SCRAM credential set, an RF 3 topic produced to with acks=all over SASL_SSL
# (SCRAM-SHA-512) and read back whole while the followers replicate over SASL_SSL (their
# ISR whole), a client without SASL and one with a wrong password refused, and SIGTERM
# again ending each node with 0.
#   compose_test.sh [STRATA_BIN_DIR]    (the host's strata CLI; default build/tools)
# Installs docker.io, docker-compose and debootstrap when missing, starts dockerd when no
# daemon answers (and stops it at the end), makes debian:12 with debootstrap when there
# is none. Everything it starts is removed on any exit (docker-compose down -v). Without
# a Docker engine it fails, naming the reason; it never passes without running.
# The image holds the programs of STRATA_BIN_DIR (the build tree the suite tested; the
# Dockerfile's `prebuilt` stage), or, with STRATA_IMAGE_FROM_SOURCE=1, compiles them in the
# Dockerfile's build stage as `docker build` does for users.
# Env: STRATA_TEST_IMAGE (default strata:test), STRATA_BUILD_LOCK (the lock that builds
# take, default /tmp/strata-build.lock), STRATA_DEPLOY_RECORDS (per phase, default 3000).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/deploy"
bin=${1:-$root/build/tools}
image=${STRATA_TEST_IMAGE:-strata:test}
store_image=${STRATA_TEST_OBJECT_STORE_IMAGE:-strata-object-store:test}
lock=${STRATA_BUILD_LOCK:-/tmp/strata-build.lock}
records=${STRATA_DEPLOY_RECORDS:-3000}
docker=/usr/bin/docker   # Debian's client: its `docker build` talks to the engine's BuildKit
project="strata-deploy-$$"
topic=deploy-test
test_start=$(date +%s)
work=$(mktemp -d /tmp/strata-deploy-test.XXXXXX)
dockerd_pid=""

log() { echo "compose_test: $*"; }
fail() { echo "compose_test: FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

files=(-f "$root/deploy/docker-compose.yml" -f "$root/deploy/docker-compose.host-network.yml")
compose() { docker-compose -p "$project" "${files[@]}" "$@"; }

cleanup() {
  local rc=$?
  set +e
  if [[ -n "${compose_started:-}" ]]; then
    if (( rc != 0 )); then
      echo "--- container states and log tails:" >&2
      compose ps >&2
      compose logs --no-color --tail 25 >&2
    fi
    compose down -v --remove-orphans -t 30 >/dev/null 2>&1 || echo "compose_test: docker-compose down failed" >&2
  fi
  if [[ -n "$dockerd_pid" ]]; then
    kill -TERM "$dockerd_pid" 2>/dev/null
    local deadline=$(( $(date +%s) + 30 ))
    while kill -0 "$dockerd_pid" 2>/dev/null && (( $(date +%s) < deadline )); do sleep 0.2; done  # waiting for dockerd to exit
    kill -KILL "$dockerd_pid" 2>/dev/null
  fi
  rm -rf "$work"
  log "total $(( $(date +%s) - test_start )) s, exit $rc"
  exit $rc
}
trap cleanup EXIT

# ---- The engine: packages, daemon, base image ----
need=()
[[ -x /usr/bin/docker ]] || need+=(docker.io)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v debootstrap >/dev/null || need+=(debootstrap)
if (( ${#need[@]} )); then
  (( $(id -u) == 0 )) || fail "needs ${need[*]} and is not root to install them"
  log "installing ${need[*]}"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } \
      >"$work/apt.log" 2>&1; then
    tail -n 20 "$work/apt.log" >&2
    fail "apt-get could not install ${need[*]}"
  fi
fi
command -v kcat >/dev/null || fail "kcat is missing (scripts/install-deps.sh installs it)"
/usr/bin/python3 -c 'import confluent_kafka' 2>/dev/null || fail "Debian's python3-confluent-kafka is missing (scripts/install-deps.sh)"
[[ -x "$bin/strata" ]] || fail "no strata CLI in $bin (build it: scripts/build.sh build release strata)"

if ! "$docker" info >/dev/null 2>&1; then
  (( $(id -u) == 0 )) || fail "no Docker daemon answers and this user cannot start one (not root)"
  log "starting dockerd (log: $work/dockerd.log)"
  dockerd --host unix:///var/run/docker.sock --storage-driver=overlay2 >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  deadline=$(( $(date +%s) + 60 ))
  until "$docker" info >/dev/null 2>&1; do
    if ! kill -0 "$dockerd_pid" 2>/dev/null; then
      dockerd_pid=""
      tail -n 20 "$work/dockerd.log" >&2
      fail "dockerd exited while starting"
    fi
    (( $(date +%s) < deadline )) || { tail -n 20 "$work/dockerd.log" >&2; fail "dockerd did not answer within 60 s"; }
    sleep 0.2  # polling the daemon's socket
  done
fi

if ! "$docker" image inspect debian:12 >/dev/null 2>&1; then
  log "no debian:12 image: making one with debootstrap"
  DOCKER="$docker" bash "$root/deploy/make-base-image.sh" debian:12 || fail "could not make the debian:12 base image"
fi

# ---- The image ----
log "building $image (deploy/Dockerfile; one build at a time on this machine: $lock)"
previous_image=$("$docker" image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
exec 9>"$lock"
lock_start=$(now)
flock 9
build_start=$(now)
# The programs of the build tree under test (prebuilt/ in a context of their own), unless
# STRATA_IMAGE_FROM_SOURCE=1 or the tree lacks them: then the Dockerfile compiles them.
context=$root
build_args=()
if [[ "${STRATA_IMAGE_FROM_SOURCE:-0}" != 1 && -x "$bin/strata-server" && -x "$bin/strata-storage" ]]; then
  context=$work/context
  mkdir -p "$context/prebuilt"
  cp -r "$root/deploy" "$context/deploy"
  install -s "$bin/strata-server" "$bin/strata" "$bin/strata-storage" "$context/prebuilt/"
  build_args=(--build-arg STRATA_BINARIES=prebuilt)
  log "the image takes the programs of $bin"
fi
DOCKER_BUILDKIT=1 "$docker" build --progress=plain "${build_args[@]}" -f "$root/deploy/Dockerfile" -t "$image" "$context" \
  >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; fail "docker build failed"; }
build_seconds=$(elapsed "$build_start" "$(now)")
exec 9>&-
# The image this tag named before is not kept (runs would pile up untagged images).
current_image=$("$docker" image inspect -f '{{.Id}}' "$image")
if [[ -n "$previous_image" && "$previous_image" != "$current_image" ]]; then
  "$docker" rmi "$previous_image" >/dev/null 2>&1 || true
fi
grep -E '^#[0-9]+ [0-9.]+ +(Hits|Misses):' "$work/build.log" | sed 's/^#[0-9]* [0-9.]* */  ccache (cumulative): /' || true
image_size=$("$docker" image ls --format '{{.Size}}' "$image")
log "image $image built in $build_seconds s (after $(elapsed "$lock_start" "$build_start") s waiting for the lock), $image_size"

# ---- Ports: node N uses ${prefix}N092/N093/N094/N100 on 127.0.0.1 ----
ports_of() { local p=$1 n s; for n in 1 2 3 4 5 6; do for s in 092 093 094 100; do echo "$p$n$s"; done; done; echo "${p}9000"; }
prefix=""
for p in 2 1; do
  if /usr/bin/python3 - $(ports_of "$p") <<'PY'
import socket, sys
for port in map(int, sys.argv[1:]):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        sys.exit(1)
    finally:
        s.close()
PY
  then prefix=$p; break; fi
done
[[ -n "$prefix" ]] || fail "ports 21092-26100 and 11092-16100 on 127.0.0.1 are both taken in part"
export STRATA_HOST_PORT_PREFIX=$prefix STRATA_IMAGE=$image
controllers="127.0.0.1:${prefix}1093,127.0.0.1:${prefix}2093,127.0.0.1:${prefix}3093"
bootstrap="127.0.0.1:${prefix}4094,127.0.0.1:${prefix}5094,127.0.0.1:${prefix}6094"
strata() { "$bin/strata" --bootstrap-controller "$controllers" "$@"; }

# ---- Up, and healthy ----
log "docker-compose up -d (project $project, ports ${prefix}N0xx)"
up_start=$(now)
compose_started=1
compose up -d >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "docker-compose up -d failed"; }
services=(controller-1 controller-2 controller-3 broker-4 broker-5 broker-6)
container() { compose ps -q "$1"; }
wait_healthy() {
  local deadline=$(( $(date +%s) + 180 )) healthy states s id state
  while :; do
    healthy=0; states=""
    for s in "${services[@]}"; do
      id=$(container "$s")
      state=$("$docker" inspect -f '{{.State.Status}}/{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$id" 2>/dev/null || echo missing)
      states+=" $s=$state"
      [[ $state == running/healthy ]] && healthy=$((healthy + 1))
      [[ $state == exited/* || $state == dead/* ]] && fail "$s stopped while starting:$states"
    done
    (( healthy == ${#services[@]} )) && break
    (( $(date +%s) < deadline )) || fail "not every container was healthy within 180 s:$states"
    sleep 0.5  # polling docker's health status
  done
}
# stopped_cleanly [SERVICE-NOT-RUNNING]: docker-compose stop; SIGTERM reaches
# strata-server (PID 1), which must exit 0.
stopped_cleanly() {
  local s code
  compose stop -t 60 >/dev/null 2>&1
  for s in "${services[@]}"; do
    [[ $s == "${1:-}" ]] && continue
    code=$("$docker" inspect -f '{{.State.ExitCode}}' "$(container "$s")")
    [[ $code == 0 ]] || fail "$s exited with $code after SIGTERM, not 0"
  done
}
# check_exactly_once ACKED CONSUMED: every acknowledged value read exactly once, nothing else.
check_exactly_once() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import collections, sys
acked = open(sys.argv[1]).read().split()
consumed = collections.Counter(open(sys.argv[2]).read().split())
missing = [v for v in acked if consumed[v] == 0]
doubled = [v for v, n in consumed.items() if n > 1]
unknown = set(consumed) - set(acked)
print(f"compose_test: acknowledged {len(acked)}, consumed {sum(consumed.values())}: "
      f"missing {len(missing)}, doubled {len(doubled)}, never acknowledged {len(unknown)}")
for name, values in (("missing", missing), ("doubled", doubled), ("never acknowledged", sorted(unknown))):
    if values:
        print(f"  {name}: {[v[:16] for v in values[:5]]}", file=sys.stderr)
sys.exit(0 if acked and not missing and not doubled and not unknown else 1)
PY
}
wait_healthy
up_seconds=$(elapsed "$up_start" "$(now)")
log "all ${#services[@]} containers healthy $up_seconds s after docker-compose up -d"
strata cluster describe

# ---- An RF 3 topic on the remote tier; produce; the tier on the shared volume ----
strata topics create "$topic" --partitions 3 --replication-factor 3 \
  --config remote.storage.enable=true --config segment.bytes=65536 >/dev/null
acked="$work/acked"
: >"$acked"
out=$(/usr/bin/python3 "$here/produce_acked.py" "$bootstrap" "$topic" 0 "$records" "$acked")
log "phase 1 (all brokers up): $out"
[[ $out == "acked=$records failed=0 unreported=0" ]] || fail "phase 1: not every record was acknowledged: $out"

# Every partition's leader copies its rolled segments to the remote tier; broker-4's mount
# of the shared volume must see the copies of all three partitions (two made by others).
deadline=$(( $(date +%s) + 90 ))
until [[ $(strata -o json topics describe "$topic" --tiers 2>/dev/null \
             | /usr/bin/python3 -c 'import json,sys; print(min(p["remote_segment_count"] for t in json.load(sys.stdin) for p in t["partitions"]))' 2>/dev/null) -gt 0 ]]; do
  (( $(date +%s) < deadline )) || { strata topics describe "$topic" --tiers >&2; fail "not every partition copied a segment to the remote tier within 90 s"; }
  sleep 0.5  # polling the controllers' tier metadata
done
seen=$(compose exec -T broker-4 sh -c 'ls /var/lib/strata-remote/*/*.log' | sed 's|^/var/lib/strata-remote/||; s|/.*||' | sort -u | wc -l)
(( seen == 3 )) || fail "broker-4 sees remote segments of $seen partitions in /var/lib/strata-remote, not 3"
log "remote tier: every partition has copied segments; broker-4's mount of the shared volume sees all 3"

# The CLI reaches the brokers through their EXTERNAL listener, as from a user's host.
strata --listener EXTERNAL groups list >"$work/groups" 2>&1 \
  || { cat "$work/groups" >&2; fail "strata --listener EXTERNAL groups list failed"; }
log "strata --listener EXTERNAL groups list: answered by every broker"

# ---- Kill a broker, produce more ----
"$docker" kill "$(container broker-6)" >/dev/null
log "killed broker-6 (docker kill)"
phase2_start=$(now)
out=$(/usr/bin/python3 "$here/produce_acked.py" "$bootstrap" "$topic" "$records" "$records" "$acked")
log "phase 2 (broker-6 killed): $out in $(elapsed "$phase2_start" "$(now)") s"
[[ $out == "acked=$records failed=0 unreported=0" ]] || fail "phase 2: not every record was acknowledged: $out"

# ---- Consume everything: each acknowledged value exactly once, nothing else ----
kcat -C -b "$bootstrap" -t "$topic" -o beginning -e -q -f '%s\n' >"$work/consumed" 2>"$work/kcat.err" \
  || { cat "$work/kcat.err" >&2; fail "kcat could not consume $topic"; }
check_exactly_once "$acked" "$work/consumed" || fail "the consumed records do not match the acknowledged ones"

# ---- A clean stop: SIGTERM reaches strata-server (PID 1), which exits 0 ----
stopped_cleanly broker-6
log "docker-compose stop: every running node exited 0"

# ---- The object-store variant, on fresh volumes: the remote tier in a MinIO bucket ----
compose down -v --remove-orphans -t 30 >/dev/null 2>&1
log "object-store variant: building $store_image (deploy/object-store/make-image.sh)"
exec 9>"$lock"
flock 9
DOCKER="$docker" bash "$root/deploy/object-store/make-image.sh" "$store_image" >"$work/store-image.log" 2>&1 \
  || { tail -n 30 "$work/store-image.log" >&2; fail "could not build the object store's image"; }
exec 9>&-
# The store's credentials (its root user and the brokers'), made for this run.
export STRATA_OBJECT_STORE_IMAGE=$store_image STRATA_OBJECT_STORE_ACCESS_KEY="test-$$" \
  STRATA_OBJECT_STORE_SECRET_KEY="$(od -An -N12 -tx4 /dev/urandom | tr -d ' \n')"
files=(-f "$root/deploy/docker-compose.yml" -f "$root/deploy/docker-compose.object-store.yml"
       -f "$root/deploy/docker-compose.host-network.yml" -f "$root/deploy/docker-compose.object-store.host-network.yml")
services+=(object-store)
store_start=$(now)
compose up -d >"$work/up-store.log" 2>&1 || { cat "$work/up-store.log" >&2; fail "docker-compose up -d (object store) failed"; }
wait_healthy
store_up_seconds=$(elapsed "$store_start" "$(now)")
log "object-store variant: all ${#services[@]} containers healthy $store_up_seconds s after up -d"
store_topic=store-test
strata topics create "$store_topic" --partitions 3 --replication-factor 3 --config remote.storage.enable=true \
  --config segment.bytes=65536 --config local.retention.bytes=65536 >/dev/null
: >"$work/acked-store"
out=$(/usr/bin/python3 "$here/produce_acked.py" "$bootstrap" "$store_topic" 0 "$records" "$work/acked-store")
log "object-store variant: $out"
[[ $out == "acked=$records failed=0 unreported=0" ]] || fail "object-store variant: not every record was acknowledged: $out"
# Every partition copies segments to the bucket and deletes them locally (local.retention.bytes),
# so that reading from offset 0 must go to the object store.
tiered() {
  strata -o json topics describe "$store_topic" --tiers 2>/dev/null | /usr/bin/python3 -c '
import json, sys
ps = [p for t in json.load(sys.stdin) for p in t["partitions"]]
sys.exit(0 if ps and all(p["remote_segment_count"] > 0 and p["local_log_start_offset"] > 0 for p in ps) else 1)'
}
deadline=$(( $(date +%s) + 90 ))
until tiered; do
  (( $(date +%s) < deadline )) || { strata topics describe "$store_topic" --tiers >&2; fail "object-store variant: not every partition copied and deleted local segments within 90 s"; }
  sleep 0.5  # polling the tiers
done
# The copies are objects in the bucket (listed from the host, signed with the store's
# credentials), and the shared volume of the directory backend holds none.
objects=$(curl -sS -f --max-time 10 --aws-sigv4 "aws:amz:us-east-1:s3" --user "$STRATA_OBJECT_STORE_ACCESS_KEY:$STRATA_OBJECT_STORE_SECRET_KEY" \
  "http://127.0.0.1:${prefix}9000/strata-tiered?list-type=2&max-keys=1000" | grep -o '<Key>[^<]*\.log</Key>' \
  | sed 's|<Key>||; s|/.*||' | sort -u | wc -l) || fail "object-store variant: cannot list the bucket"
(( objects == 3 )) || fail "object-store variant: the bucket holds .log objects of $objects partitions, not 3"
[[ -z $(compose exec -T broker-4 sh -c 'ls -A /var/lib/strata-remote') ]] \
  || fail "object-store variant: the directory backend's volume is not empty"
log "object-store variant: every partition's rolled segments are objects in the bucket, deleted locally"
kcat -C -b "$bootstrap" -t "$store_topic" -o beginning -e -q -f '%s\n' >"$work/consumed-store" 2>"$work/kcat-store.err" \
  || { cat "$work/kcat-store.err" >&2; fail "kcat could not consume $store_topic"; }
check_exactly_once "$work/acked-store" "$work/consumed-store" || fail "object-store variant: the consumed records do not match the acknowledged ones"
stopped_cleanly
log "object-store variant: docker-compose stop: every node and the store exited 0"
unset 'services[${#services[@]}-1]'

# ---- The secure variant, on fresh volumes ----
compose down -v --remove-orphans -t 30 >/dev/null 2>&1
files=(-f "$root/deploy/docker-compose.yml" -f "$root/deploy/docker-compose.host-network.yml")
secrets=$(bash "$root/deploy/make-secrets.sh" "$work/secrets") || fail "deploy/make-secrets.sh failed"
set -a
source "$secrets/secure.env"
set +a
files+=(-f "$root/deploy/docker-compose.secure.yml")
log "secure variant: docker-compose up -d with docker-compose.secure.yml"
secure_start=$(now)
compose up -d >"$work/up-secure.log" 2>&1 || { cat "$work/up-secure.log" >&2; fail "docker-compose up -d (secure) failed"; }
wait_healthy
secure_up_seconds=$(elapsed "$secure_start" "$(now)")
log "secure variant: all ${#services[@]} containers healthy $secure_up_seconds s after up -d"
if strata cluster describe >"$work/plain-cli" 2>&1; then fail "the CLI without a certificate was served by the controllers"; fi
admin() { "$bin/strata" --bootstrap-controller "$controllers" --command-config "$secrets/admin.properties" "$@"; }
admin users set admin --mechanism SCRAM-SHA-512 --password-file "$secrets/admin.password" >/dev/null
secure_topic=secure-test
admin topics create "$secure_topic" --partitions 3 --replication-factor 3 --config min.insync.replicas=2 >/dev/null
sasl() { kcat -F "$secrets/client.properties" -b "$bootstrap" "$@"; }
seq -f "secure-%g" 1 "$records" | sasl -P -t "$secure_topic" -X acks=all 2>"$work/kcat-secure.err" \
  || { cat "$work/kcat-secure.err" >&2; fail "kcat could not produce over SASL_SSL"; }
sasl -C -t "$secure_topic" -o beginning -e -q -f '%s\n' >"$work/consumed-secure" 2>>"$work/kcat-secure.err" \
  || { cat "$work/kcat-secure.err" >&2; fail "kcat could not consume over SASL_SSL"; }
distinct=$(sort -u "$work/consumed-secure" | grep -c '^secure-' || true)
(( distinct == records && $(wc -l <"$work/consumed-secure") == records )) \
  || fail "over SASL_SSL: $(wc -l <"$work/consumed-secure") records read, $distinct distinct, not $records"
isr_whole() { admin -o json topics describe "$secure_topic" | jq -e 'all(.[0].partitions[]; (.isr | length) == 3)' >/dev/null; }
for _ in $(seq 100); do isr_whole && break; sleep 0.2; done  # polling the ISR
isr_whole || { admin topics describe "$secure_topic" >&2; fail "the followers are not in sync over SASL_SSL"; }
log "secure variant: $records records produced with acks=all over SASL_SSL (SCRAM-SHA-512) and read back; every ISR whole"
if timeout 20 kcat -b "$bootstrap" -L -m 5 >/dev/null 2>&1; then fail "a client without SASL got metadata"; fi
if timeout 20 sasl -X sasl.password=wrong -L -m 5 >/dev/null 2>&1; then fail "a wrong password got metadata"; fi
log "secure variant: a client without SASL and a wrong password were refused"
stopped_cleanly
log "secure variant: docker-compose stop: every node exited 0"
log "figures: build $build_seconds s, up -d to all healthy $up_seconds s (object store: $store_up_seconds s, secure: $secure_up_seconds s), image $image_size"
log "PASS"
