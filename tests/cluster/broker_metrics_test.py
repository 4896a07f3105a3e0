#!/usr/bin/python3
"""Broker metrics on /metrics (issue 18), scraped during load: 1 controller and 3 brokers,
a 3-partition topic at RF 3 with min.insync.replicas=2, under an acks=all producer.

1. While the producer runs, every broker family is on every broker's /metrics, with
   values that agree with the load: Produce requests counted and timed (the histogram's
   +Inf bucket equals its count), record bytes and records in on the leaders (records at
   least the acknowledged ones), replication bytes out on leaders and in on followers,
   fetcher lags, connections, purgatory sizes, log sizes and end offsets, no partition
   under-replicated.
2. A Metadata request for a missing topic is counted as an UNKNOWN_TOPIC_OR_PARTITION
   error of Metadata.
3. A follower is killed: the leaders' under-replicated count rises to every partition
   (the ISR shrinks, counted; at min ISR, not below), and falls back to 0 when it
   returns (ISR expansions counted).
4. Consuming the topic counts bytes out.
5. Every metric deploy/grafana-dashboard.json charts is on a node's /metrics.
Then every acknowledged record is read back once, in order.

Usage: broker_metrics_test.py <bin dir> <strata-cluster>
"""

import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_probe import connect_when_listening, kafka_call  # noqa: E402
from replication_harness import Cluster, NumberedProducer, check_numbered, log, read_all  # noqa: E402

TOPIC = "metered"
PARTITIONS = 3

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
    "auto.leader.rebalance.enable": "false",
    "auto.create.topics.enable": "false",
}

FAMILIES = [
    "strata_kafka_requests_total", "strata_kafka_request_queue_seconds",
    "strata_kafka_response_queue_seconds", "strata_kafka_request_seconds", "strata_kafka_connections",
    "strata_purgatory_size", "strata_partitions", "strata_leader_partitions", "strata_under_replicated_partitions",
    "strata_under_min_isr_partitions", "strata_at_min_isr_partitions", "strata_isr_shrinks_total",
    "strata_isr_expands_total", "strata_replica_fetcher_lag", "strata_replica_fetcher_max_lag",
    "strata_topic_bytes_in_total", "strata_topic_records_in_total", "strata_topic_bytes_out_total",
    "strata_topic_replication_bytes_in_total", "strata_topic_replication_bytes_out_total", "strata_log_size_bytes",
    "strata_log_segments", "strata_log_start_offset", "strata_log_end_offset", "strata_log_dir_size_bytes",
    "strata_metadata_offline_partitions", "strata_fetch_sessions", "strata_fetch_session_partitions",
    "strata_fetch_session_evictions_total", "strata_fetch_session_reads_skipped_total",
    "strata_fetch_session_partitions_taken_total",
]


def total(samples, name, **labels):
    """The sum of the samples of name whose labels include labels."""
    out = 0.0
    for sample, value in samples.items():
        base = sample.split("{", 1)[0]
        if base != name:
            continue
        if all(f'{k}="{v}"' in sample for k, v in labels.items()):
            out += value
    return out


def present(samples, name):
    """Whether name has a sample (a histogram's are name_bucket, name_count, name_sum)."""
    names = {s.split("{", 1)[0] for s in samples}
    return bool(names & {name, name + "_bucket", name + "_count", name + "_sum"})


def summed(cluster, brokers, name, **labels):
    """The sum over brokers; None while one of them does not answer (just restarted)."""
    try:
        return sum(total(cluster.scrape(b), name, **labels) for b in brokers)
    except OSError:
        return None


def metadata_for_missing_topic(cluster):
    """A Metadata v1 naming a topic that does not exist (auto-create is off)."""
    sock = connect_when_listening(cluster.address(cluster.brokers[0]), 30)
    try:
        name = b"no-such-topic"
        kafka_call(sock, 3, 1, 1, struct.pack(">ih", 1, len(name)) + name)
    finally:
        sock.close()


def check_dashboard(cluster):
    log("== every metric the Grafana dashboard charts exists")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy", "grafana-dashboard.json")
    with open(path) as f:
        dashboard = json.load(f)
    charted = set()
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            charted |= set(re.findall(r"strata_[a-z_]+", target["expr"]))
    samples = {}
    for node in cluster.nodes():
        samples.update(cluster.scrape(node))
    missing = sorted(name for name in charted if not present(samples, name.removesuffix("_bucket"))
                     and not present(samples, name))
    cluster.check(charted and not missing, f"the dashboard charts {missing}, which no node shows")
    log(f"{len(charted)} metrics charted, all shown")


def check_under_load(cluster, producer):
    log("== every family on every broker, under load")
    acked = producer.acked_count()
    scraped = {b: cluster.scrape(b) for b in cluster.brokers}
    for b, samples in scraped.items():
        missing = [f for f in FAMILIES if not present(samples, f)]
        cluster.check(not missing, f"broker {b}'s /metrics lacks {missing}")
        cluster.check(total(samples, "strata_partitions") >= PARTITIONS, f"broker {b} hosts fewer than {PARTITIONS}")
        cluster.check(total(samples, "strata_under_replicated_partitions") == 0,
                      f"broker {b} has under-replicated partitions before any failure")
        cluster.check(total(samples, "strata_kafka_connections") >= 1, f"broker {b} counts no connection")
        count = total(samples, "strata_kafka_request_seconds_count", api="Fetch")
        inf = total(samples, "strata_kafka_request_seconds_bucket", api="Fetch", le="+Inf")
        cluster.check(count > 0 and inf == count, f"broker {b}: Fetch timed {count} times, +Inf bucket {inf}")
        cluster.check(total(samples, "strata_topic_replication_bytes_in_total", topic=TOPIC) > 0,
                      f"broker {b} fetched no replication bytes of {TOPIC}")
        cluster.check(total(samples, "strata_replica_fetcher_lag", topic=TOPIC) >= 0,
                      f"broker {b}: a negative fetcher lag")
        cluster.check(total(samples, "strata_log_size_bytes", topic=TOPIC) > 0, f"broker {b}: {TOPIC}'s logs are empty")
        cluster.check(total(samples, "strata_log_end_offset", topic=TOPIC) > 0, f"broker {b}: {TOPIC} ends at 0")
        if total(samples, "strata_leader_partitions") > 0:
            # The two followers of its partitions fetch in incremental sessions (KIP-227).
            cluster.check(total(samples, "strata_fetch_sessions") >= 2,
                          f"broker {b} leads partitions but holds {total(samples, 'strata_fetch_sessions')} sessions")
        lags = [s for s in samples if s.startswith("strata_replica_fetcher_lag{") and f'topic="{TOPIC}"' in s]
        cluster.check(len(lags) == PARTITIONS - 1, f"broker {b} shows lags {lags}, not one per followed partition")
    produces = sum(total(s, "strata_kafka_requests_total", api="Produce") for s in scraped.values())
    cluster.check(produces > 0, "no Produce request counted")
    records_in = sum(total(s, "strata_topic_records_in_total", topic=TOPIC) for s in scraped.values())
    cluster.check(records_in >= acked, f"{records_in} records in counted, fewer than the {acked} acknowledged before")
    bytes_in = sum(total(s, "strata_topic_bytes_in_total", topic=TOPIC) for s in scraped.values())
    cluster.check(bytes_in >= acked * 8, f"{bytes_in} bytes in for {acked} acknowledged records")
    out = sum(total(s, "strata_topic_replication_bytes_out_total", topic=TOPIC) for s in scraped.values())
    cluster.check(out > 0, "no replication bytes out counted")
    leaders = sum(total(s, "strata_leader_partitions") for s in scraped.values())
    cluster.check(leaders >= PARTITIONS, f"the brokers lead {leaders} partitions")
    log(f"{produces:.0f} produce requests, {records_in:.0f} records in ({acked} acknowledged before), "
        f"{bytes_in:.0f} bytes in, {out:.0f} replication bytes out")


def main():
    with Cluster(sys.argv[1], sys.argv[2], "broker-metrics", overrides=overrides, budget_s=150,
                 controllers=1) as cluster:
        cluster.create_topic(TOPIC, PARTITIONS, 3, configs={"min.insync.replicas": "2"})
        cluster.wait_for("every ISR full", lambda: cluster.isr_full(TOPIC), 30)
        # Idempotent: the check below wants each value once, at its acknowledged offset, and
        # a plain producer's retry after the killed broker's leaderships move may append a
        # batch again (as against Kafka).
        producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "bm", config={"enable.idempotence": True},
                                    rate=500)
        producer.start()
        producer.goes_on(cluster, "the producer", 500, 30)
        cluster.wait_for("a fetcher lag on every follower",
                         lambda: all(len([s for s in cluster.scrape(b) if s.startswith("strata_replica_fetcher_lag{")
                                          and f'topic="{TOPIC}"' in s]) == PARTITIONS - 1 for b in cluster.brokers), 30)
        check_under_load(cluster, producer)

        log("== an error in a response is counted")
        before = summed(cluster, cluster.brokers[:1], "strata_kafka_request_errors_total", api="Metadata",
                        error="UNKNOWN_TOPIC_OR_PARTITION")
        metadata_for_missing_topic(cluster)
        after = summed(cluster, cluster.brokers[:1], "strata_kafka_request_errors_total", api="Metadata",
                       error="UNKNOWN_TOPIC_OR_PARTITION")
        cluster.check(after == before + 1, f"Metadata's UNKNOWN_TOPIC_OR_PARTITION went {before} -> {after}, not +1")
        cluster.check(present(cluster.scrape(cluster.brokers[0]), "strata_kafka_request_errors_total"),
                      "no strata_kafka_request_errors_total after an error")

        log("== a follower stops: under-replicated partitions rise")
        victim = cluster.brokers[-1]
        alive = [b for b in cluster.brokers if b != victim]
        # The live leaders shrink their ISRs; the victim's own partitions get a new leader
        # and ISR from the controller.
        led_elsewhere = sum(1 for p in cluster.partitions(TOPIC) if p["leader"] != victim)
        cluster.kill9(victim)
        cluster.wait_for("every partition under-replicated on the live brokers",
                         lambda: summed(cluster, alive, "strata_under_replicated_partitions") == PARTITIONS, 30,
                         state=lambda: cluster.cluster_state(TOPIC))
        shrinks = summed(cluster, alive, "strata_isr_shrinks_total")
        cluster.check(shrinks >= led_elsewhere,
                      f"{shrinks} ISR shrinks counted, fewer than the {led_elsewhere} partitions the live leaders shrank")
        cluster.check(summed(cluster, alive, "strata_under_min_isr_partitions") == 0,
                      "an ISR of 2 counted under min.insync.replicas=2")
        cluster.check(summed(cluster, alive, "strata_at_min_isr_partitions") == PARTITIONS,
                      "the ISRs of 2 are not counted at min.insync.replicas")
        producer.goes_on(cluster, "the producer with a follower down", 500, 30)

        log("== it returns: they fall back to 0")
        cluster.start(victim)
        cluster.wait_for("no partition under-replicated",
                         lambda: summed(cluster, cluster.brokers, "strata_under_replicated_partitions") == 0, 60,
                         state=lambda: cluster.cluster_state(TOPIC))
        expands = summed(cluster, cluster.brokers, "strata_isr_expands_total")
        cluster.check(expands >= PARTITIONS, f"{expands} ISR expansions counted, fewer than the partitions that grew back")

        left = producer.stop()
        cluster.check(left == 0, f"{left} records still unacknowledged after the producer stopped")
        cluster.check(not producer.failed, f"{len(producer.failed)} records failed: {list(producer.failed.items())[:3]}")
        before = summed(cluster, cluster.brokers, "strata_topic_bytes_out_total", topic=TOPIC)
        got, errors = read_all(cluster.bootstrap, TOPIC, PARTITIONS)
        after = summed(cluster, cluster.brokers, "strata_topic_bytes_out_total", topic=TOPIC)
        cluster.check(after - before >= producer.acked_count() * 8,
                      f"consuming {producer.acked_count()} records counted {after - before} bytes out")
        for p in range(PARTITIONS):
            check_numbered(cluster, f"{TOPIC}[{p}]", got[p], producer, p)
        check_dashboard(cluster)
        log(f"{producer.acked_count()} acknowledged records read back; consumer errors: {errors[:3]}")
    sys.exit(cluster.exit_code())


if __name__ == "__main__":
    main()
