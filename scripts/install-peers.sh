#!/usr/bin/env bash
# The test peers, at pinned versions, cached between runs and fetched only when missing
# (idempotent; run by scripts/test.sh after install-deps.sh, and runnable alone). None of
# this is part of the product's build: Debian's -dev packages build Strata, these only
# talk to it in tests and benchmarks.
#   Apache Kafka  KAFKA_VERSION's jars with their runtime dependencies from Maven Central:
#                 the Java client, Kafka's command-line tools (their main classes) and the
#                 broker itself (for the side by side). Debian's JDK 17 runs them.
#   confluent-kafka for Python, CONFLUENT_KAFKA_VERSION from PyPI, in a venv of its own:
#                 its wheel carries a current librdkafka, beside Debian's 1.7 / 2.0.2.
#   franz-go      FRANZ_GO_VERSION (pinned with its dependencies by
#                 tests/compat/franz_go/go.mod and go.sum) from the Go module proxy, in a
#                 module cache of its own; the test builds its program offline.
# Where they land: $STRATA_PEERS_DIR (default ~/.cache/strata-peers), and
# $STRATA_PEERS_DIR/peers.env says where each one is (KAFKA_LIBS, KAFKA_VERSION,
# CONFLUENT_KAFKA_PYTHON, CONFLUENT_KAFKA_VERSION, GOMODCACHE, FRANZ_GO_VERSION) for the
# tests to source. A peer that cannot be fetched fails the script, naming it.
set -euo pipefail

KAFKA_VERSION=4.4.0
CONFLUENT_KAFKA_VERSION=2.16.1
FRANZ_GO_VERSION=v1.22.3

dir=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- Apache Kafka's jars -----------------------------------------------------------------
kafka=$dir/kafka-$KAFKA_VERSION
if [[ ! -f $kafka/complete ]]; then
  echo "install-peers: Apache Kafka $KAFKA_VERSION's jars (Maven Central)"
  command -v mvn > /dev/null || { echo "install-peers: mvn is missing (apt-get install maven)" >&2; exit 1; }
  cat > "$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>strata.peers</groupId>
  <artifactId>kafka</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-clients</artifactId><version>$KAFKA_VERSION</version></dependency>
  </dependencies>
</project>
EOF
  rm -rf "$kafka.tmp"
  if ! (cd "$work" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime \
          -DoutputDirectory="$kafka.tmp/libs" > "$work/mvn.log" 2>&1); then
    tail -20 "$work/mvn.log" >&2
    echo "install-peers: could not fetch Apache Kafka $KAFKA_VERSION from Maven Central" >&2
    exit 1
  fi
  java -cp "$kafka.tmp/libs/*" org.apache.kafka.tools.TopicCommand --version 2> /dev/null | grep -qx "$KAFKA_VERSION" || {
    echo "install-peers: Kafka's tools from $kafka.tmp do not run" >&2
    exit 1
  }
  rm -rf "$kafka"
  mv "$kafka.tmp" "$kafka"
  touch "$kafka/complete"
fi

# --- confluent-kafka for Python (a current librdkafka) -----------------------------------
venv=$dir/confluent-kafka-$CONFLUENT_KAFKA_VERSION
if [[ ! -f $venv/complete ]]; then
  echo "install-peers: confluent-kafka $CONFLUENT_KAFKA_VERSION (PyPI)"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q "confluent-kafka==$CONFLUENT_KAFKA_VERSION" > "$work/pip.log" 2>&1; then
    tail -20 "$work/pip.log" >&2
    echo "install-peers: could not install confluent-kafka $CONFLUENT_KAFKA_VERSION from PyPI" >&2
    exit 1
  fi
  touch "$venv/complete"
fi

# --- franz-go ----------------------------------------------------------------------------
# Pinned by tests/compat/franz_go/go.mod and go.sum (FRANZ_GO_VERSION says which): every
# module they name, so that the test builds its program offline.
gomod=$dir/go
franz_module=$(cd "$(dirname "$0")/.." && pwd)/tests/compat/franz_go
grep -q "github.com/twmb/franz-go $FRANZ_GO_VERSION" "$franz_module/go.mod" || {
  echo "install-peers: $franz_module/go.mod does not pin franz-go $FRANZ_GO_VERSION" >&2
  exit 1
}
franz_key=$(sha256sum "$franz_module/go.sum" | cut -c1-16)
if [[ ! -f $gomod/franz-go-$franz_key.complete ]]; then
  echo "install-peers: franz-go $FRANZ_GO_VERSION and its modules (Go module proxy)"
  command -v go > /dev/null || { echo "install-peers: go is missing" >&2; exit 1; }
  mkdir -p "$gomod"
  (cd "$franz_module" && GOMODCACHE=$gomod GOFLAGS=-mod=readonly go mod download > "$work/go.log" 2>&1) || {
    tail -20 "$work/go.log" >&2
    echo "install-peers: could not fetch franz-go $FRANZ_GO_VERSION's modules" >&2
    exit 1
  }
  touch "$gomod/franz-go-$franz_key.complete"
fi

cat > "$dir/peers.env.tmp" <<EOF
KAFKA_VERSION=$KAFKA_VERSION
KAFKA_LIBS=$kafka/libs
CONFLUENT_KAFKA_VERSION=$CONFLUENT_KAFKA_VERSION
CONFLUENT_KAFKA_PYTHON=$venv/bin/python
GOMODCACHE=$gomod
FRANZ_GO_VERSION=$FRANZ_GO_VERSION
EOF
mv "$dir/peers.env.tmp" "$dir/peers.env"
echo "install-peers: Kafka $KAFKA_VERSION, confluent-kafka $CONFLUENT_KAFKA_VERSION, franz-go $FRANZ_GO_VERSION in $dir"
