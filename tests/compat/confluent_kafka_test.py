"""Producing to and consuming from a running Strata cluster through a real client.

Run with Debian's Python and python3-confluent-kafka (librdkafka 2.0 underneath):
    /usr/bin/python3 confluent_kafka_test.py <bootstrap.servers>
The topics must exist (confluent_kafka_test.sh creates them with the strata CLI, RF 1):
codec-{none,gzip,snappy,lz4,zstd} (3 partitions each), stamped (3), appended (2,
message.timestamp.type=LogAppendTime), acks (3).

  * An idempotent Producer (enable.idempotence, so InitProducerId and sequenced
    Produce) per compression.type sends 6,000 messages: keyed and unkeyed (explicit
    partition), values empty, null, short, long and compressible or random, some with
    headers. Every delivery report succeeds, and per partition the offsets are 0, 1, 2...
    in the order produced.
  * A Consumer with assign() (no group APIs: group.id is set because the library insists,
    nothing subscribes or commits) reads every partition from 0 to its end: each message's
    key, value, headers and timestamp are the ones produced at that offset.
    get_watermark_offsets gives (0, count); assigning at a middle offset starts there.
  * stamped: messages with explicit CreateTime timestamps (three per millisecond value,
    lz4-compressed batches); offsets_for_times gives the first offset with a timestamp
    >= the target for exact, in-between, too early and too late targets.
  * appended (LogAppendTime): messages sent with a 1970 timestamp come back with the
    broker's time (type LOG_APPEND_TIME), and the delivery report already carried it.
  * acks=0 and acks=1 producers (not idempotent): everything arrives once, in order.
Exits non-zero naming every failed check.
"""

import random
import sys
import time

from confluent_kafka import (
    OFFSET_END,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    KafkaError,
    Producer,
    TopicPartition,
)

FAILURES = []
PARTITIONS = 3
TIMEOUT = 30  # seconds for any single client call


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAILED:", what, file=sys.stderr)
    return ok


def client_errors(name):
    """An error_cb that records every client error (librdkafka retries transient ones)."""
    def on_error(err):
        if err.fatal() or err.code() not in (KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN):
            check(False, f"{name}: client error {err}")
    return on_error


def make_messages(count, seed, partitions=PARTITIONS):
    """Deterministic (key, value, headers, partition-or-None) tuples."""
    rng = random.Random(seed)
    messages = []
    for i in range(count):
        key = None if i % 13 == 0 else b"key-%d" % i
        partition = i % partitions if key is None else None
        if i % 97 == 0:
            value = None
        elif i % 101 == 0:
            value = b""
        elif i % 499 == 0:
            value = (b"long and compressible %d " % i) * 6000
        elif i % 5 == 0:
            value = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 300)))
        elif i % 5 == 1:
            value = (b"text-%d " % i) * rng.randrange(1, 200)
        else:
            value = b"value-%d" % i
        # No None header values: confluent-kafka 1.7 loses a reference to None reading
        # them back (confluent-kafka-python issue 1191, fixed in 1.8.2) and aborts.
        headers = [("seq", b"%d" % i), ("empty", b"")] if i % 3 == 0 else None
        messages.append((key, value, headers, partition))
    return messages


def produce(bootstrap, topic, messages, config, timestamps=None):
    """Sends messages; returns {partition: [(index, offset, timestamp)]} in delivery order."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5,
                         "error_cb": client_errors(f"producer for {topic}"), **config})
    delivered = {}
    errors = []

    def on_delivery(index):
        def report(err, msg):
            if err is not None:
                errors.append((index, str(err)))
            else:
                delivered.setdefault(msg.partition(), []).append((index, msg.offset(), msg.timestamp()))
        return report

    for i, (key, value, headers, partition) in enumerate(messages):
        kwargs = {"key": key, "value": value, "on_delivery": on_delivery(i)}
        if headers is not None:
            kwargs["headers"] = headers
        if partition is not None:
            kwargs["partition"] = partition
        if timestamps is not None:
            kwargs["timestamp"] = timestamps[i]
        while True:
            try:
                producer.produce(topic, **kwargs)
                break
            except BufferError:  # the local queue is full: let deliveries drain it
                producer.poll(0.1)
        producer.poll(0)
    left = producer.flush(60)
    check(left == 0, f"{topic}: {left} messages still undelivered after 60 s")
    check(not errors, f"{topic}: {len(errors)} delivery errors, e.g. {errors[:3]}")
    count = sum(len(v) for v in delivered.values())
    check(count == len(messages), f"{topic}: {count} delivery reports for {len(messages)} messages")
    return delivered


def check_delivery_offsets(topic, delivered, starts=None):
    """Per partition, reports in production order at offsets from starts[p] (0) on."""
    for p, reports in sorted(delivered.items()):
        indexes = [i for i, _, _ in reports]
        check(indexes == sorted(indexes), f"{topic}[{p}]: delivery reports out of production order")
        offsets = [o for _, o, _ in reports]
        start = (starts or {}).get(p, 0)
        check(offsets == list(range(start, start + len(offsets))),
              f"{topic}[{p}]: delivered offsets are not {start}..{start + len(offsets) - 1}: first {offsets[:10]}")


def new_consumer(bootstrap, name):
    return Consumer({"bootstrap.servers": bootstrap, "group.id": "strata-compat-unused",
                     "enable.auto.commit": False, "enable.partition.eof": True,
                     "error_cb": client_errors(f"consumer {name}")})


def consume_all(consumer, topic, starts):
    """Reads the partitions in starts ({partition: offset}) to their ends: {p: [Message]}."""
    consumer.assign([TopicPartition(topic, p, o) for p, o in starts.items()])
    got = {p: [] for p in starts}
    at_end = set()
    deadline = time.monotonic() + 120
    while len(at_end) < len(starts) and time.monotonic() < deadline:
        for msg in consumer.consume(1000, timeout=0.2):
            if msg.error() is None:
                got[msg.partition()].append(msg)
            elif msg.error().code() == KafkaError._PARTITION_EOF:
                at_end.add(msg.partition())
            else:
                check(False, f"{topic}: consume error {msg.error()}")
    check(len(at_end) == len(starts), f"{topic}: partitions {sorted(set(starts) - at_end)} never reached their end")
    consumer.unassign()
    return got


def check_read_back(consumer, topic, messages, delivered, timestamps=None):
    """Everything delivered comes back at its offset, byte-identical."""
    got = consume_all(consumer, topic, {p: 0 for p in range(PARTITIONS)})
    for p in range(PARTITIONS):
        reports = delivered.get(p, [])
        msgs = got[p]
        check([m.offset() for m in msgs] == list(range(len(msgs))),
              f"{topic}[{p}]: offsets read are not 0..{len(msgs) - 1}: first {[m.offset() for m in msgs][:10]}")
        check(len(msgs) == len(reports), f"{topic}[{p}]: read {len(msgs)} messages, {len(reports)} were delivered")
        wrong = []
        for (index, offset, ts), msg in zip(reports, msgs):
            key, value, headers, _ = messages[index]
            if (msg.key(), msg.value(), msg.headers()) != (key, value, headers):
                wrong.append(f"offset {msg.offset()}: key {msg.key()!r:.40} value {msg.value()!r:.40} "
                             f"headers {msg.headers()} (produced #{index}: {key!r:.40} {value!r:.40} {headers})")
            want_ts = (TIMESTAMP_CREATE_TIME, timestamps[index]) if timestamps else ts
            if msg.timestamp() != want_ts:
                wrong.append(f"offset {msg.offset()}: timestamp {msg.timestamp()}, expected {want_ts}")
        check(not wrong, f"{topic}[{p}]: {len(wrong)} messages differ: {wrong[:3]}")
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=TIMEOUT, cached=False)
        check((low, high) == (0, len(reports)), f"{topic}[{p}]: watermarks ({low}, {high}), expected (0, {len(reports)})")
    return got


def test_codecs(bootstrap, consumer):
    for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
        topic = f"codec-{codec}"
        started = time.monotonic()
        messages = make_messages(6000, seed=codec)
        delivered = produce(bootstrap, topic, messages, {"enable.idempotence": True, "compression.type": codec})
        check_delivery_offsets(topic, delivered)
        check(len(delivered) == PARTITIONS, f"{topic}: deliveries to partitions {sorted(delivered)} only")
        got = check_read_back(consumer, topic, messages, delivered)
        # A consumer assigned at an offset in the middle starts there.
        middle = {p: len(got[p]) // 2 for p in range(PARTITIONS)}
        again = consume_all(consumer, topic, middle)
        for p in range(PARTITIONS):
            offsets = [m.offset() for m in again[p]]
            check(offsets == list(range(middle[p], len(got[p]))),
                  f"{topic}[{p}]: assigned at {middle[p]}, read offsets {offsets[:5]}... ({len(offsets)})")
        print(f"{topic}: {len(messages)} messages in {time.monotonic() - started:.1f} s", file=sys.stderr)


def test_timestamps(bootstrap, consumer):
    topic = "stamped"
    base = int(time.time() * 1000) - 3_600_000
    messages = make_messages(3000, seed="stamped")
    timestamps = [base + (i // 3) * 10 for i in range(len(messages))]  # three per value
    delivered = produce(bootstrap, topic, messages,
                        {"enable.idempotence": True, "compression.type": "lz4"}, timestamps)
    check_delivery_offsets(topic, delivered)
    check_read_back(consumer, topic, messages, delivered, timestamps)
    per_partition = {p: [timestamps[i] for i, _, _ in delivered.get(p, [])] for p in range(PARTITIONS)}
    rng = random.Random(7)
    targets = [base - 5000, base, base + 1, timestamps[-1], timestamps[-1] + 1]
    targets += [rng.choice(timestamps) + rng.choice((0, 0, 1, 9)) for _ in range(20)]
    for target in targets:
        result = consumer.offsets_for_times([TopicPartition(topic, p, target) for p in range(PARTITIONS)], timeout=TIMEOUT)
        for tp in result:
            stamps = per_partition[tp.partition]
            want = next((o for o, ts in enumerate(stamps) if ts >= target), OFFSET_END)
            check(tp.error is None and tp.offset == want,
                  f"{topic}[{tp.partition}]: offsets_for_times({target}) = {tp.offset} ({tp.error}), expected {want}")


def test_log_append_time(bootstrap, consumer):
    topic = "appended"
    messages = make_messages(500, seed="appended", partitions=2)
    before = int(time.time() * 1000)
    delivered = produce(bootstrap, topic, messages, {"enable.idempotence": True, "compression.type": "zstd"},
                        timestamps=[1_000_000 + i for i in range(len(messages))])
    after = int(time.time() * 1000)
    check_delivery_offsets(topic, delivered)
    reported = [ts for reports in delivered.values() for _, _, ts in reports]
    outside = [ts for ts in reported if ts[0] != TIMESTAMP_LOG_APPEND_TIME or not before <= ts[1] <= after]
    check(not outside, f"{topic}: delivery reports should carry the broker's append time in "
                       f"[{before}, {after}], {len(outside)} do not, e.g. {outside[:3]}")
    got = consume_all(consumer, topic, {p: 0 for p in range(2)})
    stamps = [m.timestamp() for msgs in got.values() for m in msgs]
    check(len(stamps) == len(messages), f"{topic}: read {len(stamps)} of {len(messages)}")
    outside = [ts for ts in stamps if ts[0] != TIMESTAMP_LOG_APPEND_TIME or not before <= ts[1] <= after]
    check(not outside, f"{topic}: timestamps read should be LogAppendTime in [{before}, {after}], "
                       f"{len(outside)} are not, e.g. {outside[:3]}")
    by_offset = {(p, o): ts for p, reports in delivered.items() for _, o, ts in reports}
    differ = [(m.partition(), m.offset()) for msgs in got.values() for m in msgs
              if by_offset.get((m.partition(), m.offset())) != m.timestamp()]
    check(not differ, f"{topic}: timestamps read differ from the delivery reports' at {differ[:5]}")


def test_acks(bootstrap, consumer):
    topic = "acks"
    messages, runs = [], []
    for acks in ("0", "1"):
        part = make_messages(2000, seed=f"acks{acks}")
        delivered = produce(bootstrap, topic, part, {"acks": acks, "compression.type": "snappy"})
        if acks == "0":  # the broker does not answer, so the reports have no offsets
            check(all(o is None or o < 0 for reports in delivered.values() for _, o, _ in reports),
                  f"{topic}: acks=0 delivery reports with offsets")
        else:  # after what acks=0 wrote
            check_delivery_offsets(f"{topic} acks={acks}", delivered, {p: len(r) for p, r in runs[0][1].items()})
        runs.append((len(messages), delivered))
        messages += part
    got = consume_all(consumer, topic, {p: 0 for p in range(PARTITIONS)})
    for p in range(PARTITIONS):
        want = [messages[first + i][:3] for first, delivered in runs for i, _, _ in delivered.get(p, [])]
        read = [(m.key(), m.value(), m.headers()) for m in got[p]]
        check(read == want, f"{topic}[{p}]: read {len(read)} messages, not the {len(want)} produced "
                            f"with acks=0 then acks=1 in that order")
        offsets = [m.offset() for m in got[p]]
        check(offsets == list(range(len(offsets))), f"{topic}[{p}]: offsets not contiguous from 0")


def main():
    bootstrap = sys.argv[1]
    consumer = new_consumer(bootstrap, "reader")
    try:
        test_codecs(bootstrap, consumer)
        test_timestamps(bootstrap, consumer)
        test_log_append_time(bootstrap, consumer)
        test_acks(bootstrap, consumer)
    finally:
        consumer.close()
    if FAILURES:
        print(f"{len(FAILURES)} checks failed", file=sys.stderr)
        sys.exit(1)
    print("confluent-kafka produce/consume test passed")


if __name__ == "__main__":
    main()
