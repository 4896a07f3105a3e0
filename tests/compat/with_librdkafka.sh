#!/usr/bin/env bash
# Runs a confluent-kafka test with one of the two librdkafka versions the tests cover:
#   debian   Debian's python3-confluent-kafka 1.7 on librdkafka 2.0.2 (/usr/bin/python3);
#   current  confluent-kafka from PyPI with the librdkafka its wheel carries (2.16: leader
#            epochs checked, KIP-320), in the venv of scripts/install-peers.sh.
# STRATA_PYTHON is set to that interpreter for the test's shell scripts; a command that is
# a .py file runs under it. The librdkafka version is printed first.
# Usage: with_librdkafka.sh debian|current COMMAND [ARGS...]
set -euo pipefail
which=${1:?usage: $0 debian|current COMMAND [ARGS...]}
shift
case "$which" in
  debian) STRATA_PYTHON=/usr/bin/python3 ;;
  current)
    peers=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
    [[ -f $peers/peers.env ]] || { echo "no test peers in $peers: bash scripts/install-peers.sh" >&2; exit 1; }
    STRATA_PYTHON=$(sed -n 's/^CONFLUENT_KAFKA_PYTHON=//p' "$peers/peers.env")
    ;;
  *) echo "with_librdkafka.sh: debian or current, not $which" >&2; exit 2 ;;
esac
export STRATA_PYTHON
"$STRATA_PYTHON" -c 'import confluent_kafka as c; v = c.version(); print("confluent-kafka", v if isinstance(v, str) else v[0], "librdkafka", c.libversion()[0])'
if [[ $1 == *.py ]]; then exec "$STRATA_PYTHON" "$@"; fi
exec "$@"
