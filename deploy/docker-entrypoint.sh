#!/bin/bash
# The Strata image's entrypoint. Writes the node's server.properties from STRATA_*
# environment variables, formats the node's directories (idempotent: an already formatted
# directory of the same cluster and node is left as it is), then execs strata-server, which
# runs as PID 1 and stops cleanly on SIGTERM.
#
# STRATA_<NAME> sets the setting <name>: NAME upper-cased, '.' written '_', '_' written
# '__', '-' written '___' (STRATA_NODE_ID -> node.id, STRATA_LOG_DIRS -> log.dirs).
# Not settings (read here, by strata-server or by the CLI, never written to the file):
#   STRATA_CLUSTER_ID      the cluster id every node is formatted with (required;
#                          make one with: strata-storage random-uuid)
#   STRATA_CONFIG_FILE     where the file is written (default /etc/strata/server.properties)
#   STRATA_LOG_LEVEL, STRATA_MUTEX_DEADLOCK_DETECTION, STRATA_BOOTSTRAP_CONTROLLER,
#   STRATA_COMMAND_CONFIG (the CLI's client config: the health check's, with mutual TLS)
# Defaults: metadata.log.dir=/var/lib/strata/metadata and, for a broker,
# log.dirs=/var/lib/strata/logs.
# Arguments: none, or strata-server options (e.g. --override key=value) which are passed
# on; a first argument that is not an option is run as a command instead (docker run IMAGE
# strata --help).
set -euo pipefail

if [[ $# -gt 0 && $1 != -* ]]; then exec "$@"; fi

config=${STRATA_CONFIG_FILE:-/etc/strata/server.properties}
not_settings=" CLUSTER_ID CONFIG_FILE LOG_LEVEL MUTEX_DEADLOCK_DETECTION BOOTSTRAP_CONTROLLER COMMAND_CONFIG "

fail() { echo "docker-entrypoint: $*" >&2; exit 1; }

# STRATA_NODE_ID -> node.id: '___' -> '-', '__' -> '_', '_' -> '.', lower case.
setting_name() {
  local name=${1,,}
  name=${name//___/$'\x01'}
  name=${name//__/$'\x02'}
  name=${name//_/.}
  name=${name//$'\x01'/-}
  name=${name//$'\x02'/_}
  echo "$name"
}

: "${STRATA_NODE_ID:?is required (the node.id of this node)}"
: "${STRATA_PROCESS_ROLES:?is required (broker, controller or broker,controller)}"
: "${STRATA_CONTROLLER_QUORUM_VOTERS:?is required (id@host:port,... of every controller)}"
: "${STRATA_CLUSTER_ID:?is required (the same for every node; make one with: strata-storage random-uuid)}"
export STRATA_METADATA_LOG_DIR=${STRATA_METADATA_LOG_DIR:-/var/lib/strata/metadata}
if [[ $STRATA_PROCESS_ROLES == *broker* ]]; then
  export STRATA_LOG_DIRS=${STRATA_LOG_DIRS:-/var/lib/strata/logs}
fi

mkdir -p "$(dirname "$config")"
{
  echo "# Written by docker-entrypoint.sh from the STRATA_* environment at $(date -u +%FT%TZ)."
  while IFS= read -r var; do
    suffix=${var#STRATA_}
    [[ $not_settings == *" $suffix "* ]] && continue
    echo "$(setting_name "$suffix")=${!var}"
  done < <(compgen -e | grep '^STRATA_.' | sort)
} >"$config.tmp"
mv "$config.tmp" "$config"
# Printed for the container's log without the values of secrets (passwords, secret keys,
# JAAS entries, tokens): the file itself has them.
echo "docker-entrypoint: $config (secrets hidden):" >&2
grep -v '^#' "$config" | sed -E 's/^([^=]*(password|secret|jaas\.config|token)[^=]*)=.*/\1=[hidden]/; s/^/  /' >&2

# Formats what is not formatted yet; refuses a directory of another cluster or node.
strata-storage format --cluster-id "$STRATA_CLUSTER_ID" --config "$config" >&2 \
  || fail "cannot format the directories of node $STRATA_NODE_ID (see above)"

exec strata-server --config "$config" "$@"
