# Shared by scale_bench.sh and scale_quorum_bench.sh (sourced): reading a cluster made by
# strata-cluster, and the cost of one metadata change on its brokers. Needs S (the strata
# CLI) and STRATA_BOOTSTRAP_CONTROLLER set.
now_ms() { date +%s%3N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
metric() {  # metric <metrics host:port> <name>
  curl -s "http://$1/metrics" | awk -v n="$2" '$1 == n {print $2}'
}
metrics_address() { sed -n 's/^metrics.listener=//p' "$1/server.properties"; }

# apply_cost <cluster dir> <probe topic> <probes> <broker id>...: the cost of one metadata
# change on each broker, in ms, comma-separated: <probes> config changes of the topic, one
# after another (each a Config record that every broker applies), as
# strata_metadata_image_apply_seconds_total over strata_metadata_image_applies_total
# (the delta over the probes). The brokers must be quiet first: the apply that opened
# their logs counts once it ends, so it waits until no apply ended for a second.
apply_cost() {
  local dir=$1 topic=$2 probes=$3; shift 3
  local -A a0 s0
  local b m t0 last cur a1 s1 p out=()
  for b in "$@"; do
    m=$(metrics_address "$dir/node-$b"); t0=$(now_ms); last=""
    while true; do
      cur=$(metric "$m" strata_metadata_image_applies_total)
      [ "$cur" = "$last" ] && break
      last=$cur
      if [ $(( $(now_ms) - t0 )) -gt 120000 ]; then echo "broker $b never quiet within 120 s" >&2; return 1; fi
      sleep 1  # sampling the counter a second apart, with the deadline above
    done
    a0[$b]=$(metric "$m" strata_metadata_image_applies_total); s0[$b]=$(metric "$m" strata_metadata_image_apply_seconds_total)
  done
  for p in $(seq 1 "$probes"); do "$S" configs alter --topic "$topic" --set "retention.ms=$(( 3600000 + p ))" >/dev/null; done
  for b in "$@"; do
    m=$(metrics_address "$dir/node-$b"); t0=$(now_ms)
    until [ "$(awk -v a="$(metric "$m" strata_metadata_image_applies_total)" -v a0="${a0[$b]}" -v n="$probes" \
                'BEGIN {print (a - a0 >= n) ? 1 : 0}')" = 1 ]; do
      if [ $(( $(now_ms) - t0 )) -gt 60000 ]; then echo "broker $b did not apply the probes within 60 s" >&2; return 1; fi
      sleep 0.1  # polling the broker's counter, with the deadline above
    done
    a1=$(metric "$m" strata_metadata_image_applies_total); s1=$(metric "$m" strata_metadata_image_apply_seconds_total)
    out+=($(awk -v a0="${a0[$b]}" -v a1="$a1" -v s0="${s0[$b]}" -v s1="$s1" 'BEGIN {printf "%.3f", (s1 - s0) * 1000 / (a1 - a0)}'))
  done
  (IFS=,; echo "${out[*]}")
}
