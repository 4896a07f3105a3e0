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
#   MinIO         MINIO_VERSION, the S3 server the object-store tests and
#                 `strata-cluster up --object-store` run on loopback: built from its
#                 source on the Go module proxy (go install at the pseudo-version of that
#                 release's commit) into $dir/minio-$MINIO_VERSION/minio. It runs as a
#                 separate, unmodified process (AGPL-3.0): nothing of it is linked into,
#                 shipped with or kept in Strata.
# Usage: install-peers.sh [minio]   (no argument: every peer; minio: that one alone, as
# `strata-cluster up --object-store` asks for it)
# Where they land: $STRATA_PEERS_DIR (default ~/.cache/strata-peers), and
# $STRATA_PEERS_DIR/peers.env says where each one is (KAFKA_LIBS, KAFKA_VERSION,
# CONFLUENT_KAFKA_PYTHON, CONFLUENT_KAFKA_VERSION, GOMODCACHE, FRANZ_GO_VERSION, MINIO,
# MINIO_VERSION) for the
# tests to source. A peer that cannot be fetched fails the script, naming it.
set -euo pipefail
only=${1:-all}
[[ $only == all || $only == minio ]] || { echo "install-peers: unknown peer '$only' (all, minio)" >&2; exit 2; }

KAFKA_VERSION=4.4.0
CONFLUENT_KAFKA_VERSION=2.16.1
FRANZ_GO_VERSION=v1.22.3
MINIO_VERSION=RELEASE.2025-09-07T16-13-09Z
MINIO_MODULE_VERSION=v0.0.0-20250907161309-07c3a429bfed  # that release's commit

dir=${STRATA_PEERS_DIR:-$HOME/.cache/strata-peers}
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- Apache Kafka's jars -----------------------------------------------------------------
kafka=$dir/kafka-$KAFKA_VERSION
if [[ $only == all && ! -f $kafka/complete ]]; then
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
if [[ $only == all && ! -f $venv/complete ]]; then
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
if [[ $only == all && ! -f $gomod/franz-go-$franz_key.complete ]]; then
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

# --- MinIO --------------------------------------------------------------------------------
minio=$dir/minio-$MINIO_VERSION
if [[ ! -x $minio/minio ]]; then
  echo "install-peers: MinIO $MINIO_VERSION (built from the Go module proxy, about 2 minutes)"
  command -v go > /dev/null || { echo "install-peers: go is missing" >&2; exit 1; }
  rm -rf "$minio.tmp"
  mkdir -p "$gomod" "$minio.tmp"
  if ! (cd "$work" && GOMODCACHE=$gomod GOBIN=$minio.tmp GOFLAGS=-mod=mod \
          go install "github.com/minio/minio@$MINIO_MODULE_VERSION" > "$work/minio.log" 2>&1); then
    tail -20 "$work/minio.log" >&2
    echo "install-peers: could not build MinIO $MINIO_VERSION from the Go module proxy" >&2
    exit 1
  fi
  "$minio.tmp/minio" --version > /dev/null 2>&1 || { echo "install-peers: $minio.tmp/minio does not run" >&2; exit 1; }
  rm -rf "$minio"
  mv "$minio.tmp" "$minio"
fi

if [[ $only == minio ]]; then
  { grep -v '^MINIO' "$dir/peers.env" 2>/dev/null || true
    echo "MINIO=$minio/minio"
    echo "MINIO_VERSION=$MINIO_VERSION"
  } > "$dir/peers.env.tmp"
  mv "$dir/peers.env.tmp" "$dir/peers.env"
  echo "install-peers: MinIO $MINIO_VERSION in $dir"
  exit 0
fi
cat > "$dir/peers.env.tmp" <<EOF
KAFKA_VERSION=$KAFKA_VERSION
KAFKA_LIBS=$kafka/libs
CONFLUENT_KAFKA_VERSION=$CONFLUENT_KAFKA_VERSION
CONFLUENT_KAFKA_PYTHON=$venv/bin/python
GOMODCACHE=$gomod
FRANZ_GO_VERSION=$FRANZ_GO_VERSION
MINIO=$minio/minio
MINIO_VERSION=$MINIO_VERSION
EOF
mv "$dir/peers.env.tmp" "$dir/peers.env"
echo "install-peers: Kafka $KAFKA_VERSION, confluent-kafka $CONFLUENT_KAFKA_VERSION, franz-go $FRANZ_GO_VERSION, MinIO $MINIO_VERSION in $dir"
