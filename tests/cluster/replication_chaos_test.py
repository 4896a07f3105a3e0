"""Acknowledged records survive kill -9 of brokers, leaders included (issue 6, test 1).

3 controllers + 3 brokers (real processes); topic `chaos`: 3 partitions, RF 3,
min.insync.replicas 2. An idempotent confluent-kafka producer (acks=all) sends numbered
values at a steady rate while a seeded chaos loop (STRATA_TEST_SEED repeats it) kills -9
a broker — most often a partition leader — several times: some restarts come at once (a
new incarnation while the controller still counts the old one alive), others after the
controller fenced the dead broker and moved its leaderships (then produce must go on
with the two survivors), and in some rounds a second broker (a leader) is killed and
restarted while the first still catches up (ISRs may drop below min.insync.replicas:
produce stalls and is retried). Before the next round every ISR is full again. All
ROUNDS rounds must run to their end: a producer stopped on a fatal error (below) ends
only the waits for its acknowledgements, never the rounds.
Afterwards, for every partition:
  * every replica's log holds the same bytes (the concatenated .log segments) once the
    ISR is full again and the log ends agree;
  * on every replica and through a consumer reading from the beginning, each
    acknowledged value is there exactly once, at the offset its delivery report gave;
    values are in production order; no value appears twice, acknowledged or not;
  * a consumer tailing the topic through the chaos (auto.offset.reset=error) was served
    only records that are in the final log at the same offsets (nothing served below a
    high watermark is lost), each offset once;
  * every record was acknowledged (no delivery failures: the producer retries through
    leader changes and NOT_ENOUGH_REPLICAS within its 60 s message timeout), and
    acknowledgements never stopped for 15 s. One exception: librdkafka 2.0 may stop an
    idempotent producer on "sequence desynchronization" (its PR 4438, fixed in 2.3: it
    counts a possibly-persisted batch as written); the test accepts that only when the
    broker's OUT_OF_ORDER_SEQUENCE_NUMBER was right by its log, and then checks what was
    acknowledged up to there (the rounds still all run).
Usage: /usr/bin/python3 replication_chaos_test.py <bin dir> <strata-cluster>
"""

import sys

from replication_harness import (Cluster, NumberedProducer, TailingConsumer, TestFailed, check_after_chaos, log,
                                 seeded_random)

TOPIC = "chaos"
PARTITIONS = 3
ROUNDS = 6
# Acknowledgements never stop longer than this: a leader election takes about the session
# timeout; a request stuck at a deposed leader would wait out request.timeout.ms (30 s).
STALL_S = 15

overrides = {
    "broker.session.timeout.ms": 2000,
    "broker.heartbeat.interval.ms": 200,
    "replica.lag.time.max.ms": 2000,
    "replica.fetch.backoff.ms": 100,
}

with Cluster(sys.argv[1], sys.argv[2], "replication-chaos", overrides, budget_s=170) as cluster:
    rng = seeded_random("replication-chaos")
    cluster.create_topic(TOPIC, PARTITIONS, 3, {"min.insync.replicas": 2})
    producer = NumberedProducer(cluster.bootstrap, TOPIC, PARTITIONS, "chaos",
                                {"enable.idempotence": True, "request.timeout.ms": 30000}, rate=1500).start()
    tailing = TailingConsumer(cluster.bootstrap, TOPIC, PARTITIONS)
    cluster.wait_for("the first 500 acknowledgements", lambda: producer.acked_at_least(500), 30)

    def produce_goes_on(what, records=300):
        producer.goes_on(cluster, what, records, STALL_S)

    # Every round runs to its end, whatever the producer does: a wait that fails is a
    # failure (the checks below still run on what was acknowledged).
    rounds_done = 0
    try:
        for rnd in range(ROUNDS):
            parts = cluster.partitions(TOPIC)
            if rng.random() < 0.75:
                victim = parts[rng.randrange(PARTITIONS)]["leader"]
            else:
                victim = rng.choice(cluster.brokers)
            kind = rng.choice(["late", "quick", "overlap"])
            led = [p["partition"] for p in parts if p["leader"] == victim]
            log(f"round {rnd + 1}: broker {victim} (leads {led}), {kind} restart; {producer.acked_count()} acked so far")
            cluster.kill9(victim)
            if kind == "late":
                # The controller fences it and moves its leaderships to the other ISR members;
                # acks=all produce goes on with two in-sync replicas.
                cluster.wait_for(f"broker {victim}'s leaderships to move",
                                 lambda: all(p["leader"] not in (victim, -1) for p in cluster.partitions(TOPIC)), 30)
                produce_goes_on(f"produce to go on without broker {victim}")
            cluster.start(victim)
            if kind == "overlap":
                # While it catches up (maybe out of an ISR), a leader among the others dies too:
                # ISRs may fall below min.insync.replicas and produce stalls (retried) until
                # both are back; nothing acknowledged may be lost.
                second = next((p["leader"] for p in cluster.partitions(TOPIC) if p["leader"] not in (victim, -1)),
                              rng.choice([b for b in cluster.brokers if b != victim]))
                log(f"round {rnd + 1}: and broker {second} while broker {victim} catches up")
                cluster.kill9(second)
                cluster.start(second)
            # The controller has seen the restarts (new registrations; an old incarnation's
            # session may still run out after a quick restart) and every ISR is full.
            cluster.wait_for(f"restarted brokers registered anew and every ISR full after round {rnd + 1}",
                             lambda: cluster.settled(TOPIC), 60, lambda: cluster.cluster_state(TOPIC))
            produce_goes_on("produce to go on with the full ISR")
            rounds_done += 1
    except TestFailed as e:
        cluster.check(False, f"chaos round {rounds_done + 1}: {e}")
        for b in cluster.brokers:
            if not cluster.running(b):
                cluster.start(b)
    cluster.check(rounds_done == ROUNDS, f"{rounds_done} of the {ROUNDS} kill -9 rounds ran to their end")

    check_after_chaos(cluster, TOPIC, PARTITIONS, producer, tailing, STALL_S)

sys.exit(cluster.exit_code())
