"""Every Kafka codec end to end through real clients, a raw producer and the stored files.

Run with Debian's Python (python3-confluent-kafka, librdkafka 2.0) and kcat on PATH:
    /usr/bin/python3 compression_test.py <bootstrap.servers> <cluster dir> <bin dir>
The topics must exist (compression_test.sh creates them with the strata CLI, RF 1); the
cluster dir is strata-cluster's (node-ID/logs/TOPIC-P/ is read with strata-storage dump,
read-only, while the brokers run).

librdkafka enables lz4 only for brokers that advertise FindCoordinator (its LZ4 feature
stands for "broker >= 0.8.2", rdkafka_feature.c); Strata advertises the group APIs, so
Cluster.client_codec checks that it does and librdkafka's lz4 batches must be stored as
lz4. lz4 batches are also made by the broker (compression.type=lz4) and sent raw
(hand-made LZ4 frames).

  * Round trips, per codec (none, gzip, snappy, lz4, zstd): kcat -P -z CODEC sends 8,000
    lines to kcat-CODEC (3 partitions) in two runs, the first with two record headers,
    the second with -Z (empty keys and values as null); keys null, empty or set, values
    empty, short, ~20 KB compressible, random or every byte but \\t and \\n. An idempotent
    confluent-kafka Producer with compression.type CODEC sends 3,000 messages to ck-CODEC
    (confluent_kafka_test.make_messages: null and empty keys and values, headers, 150 KB
    values). The confluent-kafka Consumer and kcat -C both read each topic back: every
    record exactly once, at offsets 0, 1, 2... per partition in production order, with its
    key, value and headers; both readers agree on every record and timestamp. The stored
    batches carry the producer's codec (compression.type=producer, the default), but for
    those librdkafka sent uncompressed because compressing did not make them smaller.
  * offsets_for_times inside compressed batches (times-{gzip,snappy,lz4,zstd}, one
    partition; times-lz4 has compression.type=lz4): 1,000 records with timestamps
    base + 2i, produced in four flushes, so that they land in a few large batches (the
    dump must show batches of 100+ records and 10+ looked-up offsets strictly inside one,
    else the test could not tell an exact lookup from one answering the batch's first
    offset). For targets before, at, between and after records (base + 1400 -> 700,
    base + 1399 -> 700, ...) confluent-kafka offsets_for_times and kcat -Q answer the first
    offset whose timestamp >= the target.
  * Topic compression.type: recompress-{zstd,gzip,snappy,lz4} and recompress-uncompressed
    receive batches from idempotent producers of every codec (explicit CreateTime
    timestamps); every stored batch has the topic's codec (none for uncompressed) and
    keeps its producer id and sequence, both readers get the records back exactly with
    their timestamps, offsets_for_times is exact. recompress-producer stores each batch in
    its producer's codec.
  * message.timestamp.type=LogAppendTime (appended, and appended-gzip which also
    recompresses): batches of each codec sent with 1970 timestamps are stored as
    LogAppendTime batches with the append time as their max timestamp, consumers (both)
    see the broker's append time (type LOG_APPEND_TIME), the same as the delivery
    report's and within the produce's time; offsets_for_times answers by append time (a
    1970 time inside the batches answers offset 0, not a record's own offset).
  * Raw Produce v8 requests (tests/cluster/kafka_probe.py) with valid CRCs: gzip, raw
    snappy, the xerial snappy framing the Java client writes and LZ4 frames are accepted,
    stored in their codec and read back by both clients (and recompressed to zstd on
    raw-zstd); corrupt batches (garbage, truncated, trailing bytes, bad records inside a
    good stream, a bad frame checksum, a decompression bomb, an unknown codec, for every
    codec) are refused with CORRUPT_MESSAGE or INVALID_RECORD for their partition only
    (the other partition of the same request is appended), nothing of them is stored,
    and the broker goes on serving the same connection.
  * zstd and the versions older than it (KIP-110), against the versions ApiVersions
    advertises (one below the advertised minimum is replaced by it, with a NOTE): a zstd
    batch (hand-made frame of raw blocks) in Produce v3 and v6 is refused with
    UNSUPPORTED_COMPRESSION_TYPE (76) and base offset -1 for its partition only (a gzip
    batch to another partition of the same request is appended), and nothing of it is
    stored; the same batch in Produce v7 and the newest advertised version (v9, flexible)
    is appended. The stored codecs and both clients' reads show exactly the accepted
    batches. Fetch v4 and v9 of a partition of zstd-fetch (compression.type=zstd) answer
    76 and no records for it, while a partition of another topic in the same request gets
    its records; Fetch v10, v11 and v12 (flexible) return the zstd topic's batches (base
    offsets, counts, codec zstd, valid CRCs). Fetch v13 names topics by id and is not sent.
    A Fetch with a leader epoch beyond the leader's answers UNKNOWN_LEADER_EPOCH (75).
Exits non-zero naming every failed check.
"""

import gzip
import json
import os
import random
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "cluster"))

from confluent_kafka import (  # noqa: E402
    OFFSET_END,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    TopicPartition,
)

import confluent_kafka_test as shared  # noqa: E402  the producing and reading helpers
from replication_harness import TestFailed  # noqa: E402
from kafka_probe import (  # noqa: E402
    connect_when_listening,
    fetch_error,
    kafka_call,
    skip_tagged_fields,
    uvarint,
    uvarint_at,
)

check = shared.check
TIMEOUT = shared.TIMEOUT
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
CORRUPT_MESSAGE, INVALID_RECORD = 2, 87
PRODUCE, FETCH, FIND_COORDINATOR = 0, 1, 10


class Cluster:
    """Where the brokers and their partition directories are."""

    def __init__(self, bootstrap, directory, bin_dir, consumer):
        self.bootstrap, self.dir, self.bin_dir, self.consumer = bootstrap, directory, bin_dir, consumer
        self.advertised = None  # {API key: (min version, max version)} of a broker's ApiVersions

    def leader(self, topic, partition):
        meta = self.consumer.list_topics(topic, timeout=TIMEOUT)
        return meta.topics[topic].partitions[partition].leader

    def address(self, broker):
        b = self.consumer.list_topics(timeout=TIMEOUT).brokers[broker]
        return f"{b.host}:{b.port}"

    def stored_batches(self, topic, partition):
        """The batch lines of strata-storage dump --output json of the leader's replica."""
        d = os.path.join(self.dir, f"node-{self.leader(topic, partition)}", "logs", f"{topic}-{partition}")
        files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".log"))
        out = subprocess.run([os.path.join(self.bin_dir, "strata-storage"), "dump", "--output", "json", *files],
                             capture_output=True, text=True, timeout=60)
        if not check(out.returncode == 0, f"strata-storage dump of {d} exited {out.returncode}: {out.stderr[-300:]}"):
            return []
        lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        return [e for e in lines if e["type"] == "batch"]

    def client_codec(self, codec):
        """The codec a librdkafka producer configured with codec writes to this cluster: the
        same, lz4 too, since the brokers advertise FindCoordinator (checked: librdkafka
        sends lz4 uncompressed to brokers that do not)."""
        if codec == "lz4" and FIND_COORDINATOR not in self.api_versions():
            raise AssertionError("the brokers do not advertise FindCoordinator: librdkafka would send its lz4 "
                                 "batches uncompressed")
        return codec

    def api_versions(self):
        """{API key: (min, max)} that a broker advertises (all run the same binary), asked once."""
        if self.advertised is None:
            broker = next(iter(self.consumer.list_topics(timeout=TIMEOUT).brokers))
            with connect_when_listening(self.address(broker), 30) as sock:
                self.advertised = api_versions(sock)
        return self.advertised

    def broker_alive(self, broker):
        """The broker's process exists and has not exited: a crashed one stays a zombie
        until init reaps it, which kill(pid, 0) does not tell from a live one."""
        with open(os.path.join(self.dir, f"node-{broker}", "pid")) as f:
            pid = int(f.read().split()[0])
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False


# ---- reading back ------------------------------------------------------------------

def canonical(msg):
    """(key, value, headers, timestamp) of a confluent-kafka Message."""
    return (msg.key(), msg.value(), tuple(msg.headers() or ()), msg.timestamp()[1])


def ck_records(got):
    """{(partition, offset): canonical} of consume_all's answer."""
    return {(m.partition(), m.offset()): canonical(m) for msgs in got.values() for m in msgs}


def kcat_read(bootstrap, topic):
    """{(partition, offset): (key, value, headers, timestamp)} read by kcat -C from the beginning.

    One header line per record with the key and value lengths (-1: null), then the key
    and value bytes, so any bytes survive; header values never hold ',' or '='."""
    out = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-e", "-q", "-o", "beginning",
                          "-f", "%p\t%o\t%T\t%K\t%S\t%h\n%k%s\n"], capture_output=True, timeout=120,
                         stdin=subprocess.DEVNULL)
    if not check(out.returncode == 0, f"kcat -C {topic} exited {out.returncode}: {out.stderr[-300:]!r}"):
        return {}
    records, data, at = {}, out.stdout, 0
    while at < len(data):
        end = data.index(b"\n", at)
        p, o, ts, klen, vlen, hdrs = data[at:end].split(b"\t")
        at = end + 1
        klen, vlen = int(klen), int(vlen)
        key = data[at:at + klen] if klen >= 0 else None
        at += max(klen, 0)
        value = data[at:at + vlen] if vlen >= 0 else None
        at += max(vlen, 0) + 1
        headers = tuple((h.split(b"=", 1)[0].decode(), h.split(b"=", 1)[1]) for h in hdrs.split(b",")) if hdrs else ()
        records[(int(p), int(o))] = (key, value, headers, int(ts))
    return records


def check_same(topic, what, got, want):
    """Two {(partition, offset): record} maps are equal; names the first differences."""
    if got == want:
        return True
    only_got = sorted(set(got) - set(want))
    only_want = sorted(set(want) - set(got))
    differ = [k for k in sorted(set(got) & set(want)) if got[k] != want[k]]
    detail = [f"{k}: {str(got[k])[:120]} vs {str(want[k])[:120]}" for k in differ[:2]]
    return check(False, f"{topic}: {what}: {len(got)} vs {len(want)} records, only in the first at {only_got[:3]}, "
                        f"only in the second at {only_want[:3]}, {len(differ)} differ: {detail}")


def check_stored_codecs(cluster, topic, partitions, want, count, by_client=False):
    """Every stored batch of the topic has codec want (a name, or a function of the batch's
    (partition, base offset)). by_client: the batches were written by librdkafka, which
    sends a batch uncompressed when compressing does not make it smaller, so batches may
    also be uncompressed as long as those with codec want hold most records."""
    batches = [dict(b, partition=p) for p in range(partitions) for b in cluster.stored_batches(topic, p)]

    def wanted(b):
        return want(b["partition"], b["baseOffset"]) if callable(want) else want

    wrong = [b for b in batches if b["compression"] != wanted(b) and not (by_client and b["compression"] == "none")]
    check(not wrong, f"{topic}: {len(wrong)} of {len(batches)} stored batches are not "
                     f"{'as produced' if callable(want) else want}: "
                     f"{[(b['partition'], b['baseOffset'], b['compression']) for b in wrong[:5]]}")
    stored = sum(b["count"] for b in batches)
    check(stored == count, f"{topic}: the stored batches hold {stored} records, {count} were produced")
    if by_client:
        with_codec = sum(b["count"] for b in batches if b["compression"] == wanted(b))
        check(2 * with_codec >= stored, f"{topic}: only {with_codec} of {stored} records are stored in batches of "
                                        f"the producer's codec, the others uncompressed")
    return batches


# ---- 1. round trips ----------------------------------------------------------------

def kcat_lines(first, last, seed):
    """kcat -P input lines for N in [first, last) and {N: (key text or None, value text)}.

    Every line names its N: in its key "key-N" or, when the key is empty or absent, at
    the start of its value "N:"."""
    rng = random.Random(seed)
    every_byte = bytes(b for b in range(256) if b not in (9, 10))
    lines, model = [], {}
    for n in range(first, last):
        if n % 997 == 0:
            value = b"%d:long " % n + (b"compressible-%d " % n) * 1300
        elif n % 7 == 0:
            value = b"%d:" % n + every_byte
        elif n % 5 == 0:
            value = b"%d:" % n + bytes(rng.choice(every_byte) for _ in range(rng.randrange(1, 400)))
        else:
            value = b"%d:value" % n
        if n % 11 == 0:
            key = None  # no delimiter: a null key
        elif n % 19 == 0:
            key = b""
        else:
            key = b"key-%d" % n
            if n % 17 == 0:
                value = b""
        lines.append(value if key is None else key + b"\t" + value)
        model[n] = (key, value)
    return b"".join(line + b"\n" for line in lines), model


def number_of(key, value):
    if key and key.startswith(b"key-"):
        return int(key[4:])
    return int(value.split(b":", 1)[0])


def kcat_produce(bootstrap, topic, data, args):
    out = subprocess.run(["kcat", "-P", "-b", bootstrap, "-t", topic, "-K", "\t", *args], input=data,
                         capture_output=True, timeout=120)
    err = out.stderr.decode(errors="replace")
    check(out.returncode == 0 and "error" not in err.lower() and "fail" not in err.lower(),
          f"kcat -P {' '.join(args)} to {topic} exited {out.returncode}: {err[-300:]}")


def test_kcat_round_trip(cluster, codec):
    topic = f"kcat-{codec}"
    headers = (("codec", codec.encode()), ("empty", b""))
    first, model_first = kcat_lines(0, 5000, seed=f"{topic}-1")
    second, model_second = kcat_lines(5000, 8000, seed=f"{topic}-2")
    kcat_produce(cluster.bootstrap, topic, first, ["-z", codec, "-H", f"codec={codec}", "-H", "empty="])
    kcat_produce(cluster.bootstrap, topic, second, ["-z", codec, "-Z"])
    want = {n: (k, v, headers) for n, (k, v) in model_first.items()}
    # -Z: empty keys and values are sent as null.
    want.update({n: (k or None, v or None, ()) for n, (k, v) in model_second.items()})

    got = shared.consume_all(cluster.consumer, topic, {p: 0 for p in range(shared.PARTITIONS)})
    read = ck_records(got)
    seen, wrong = {}, []
    for p, msgs in got.items():
        numbers = []
        for m in msgs:
            key, value, hdrs, _ = canonical(m)
            n = number_of(key, value) if (key or value) else -1
            numbers.append(n)
            if n in seen:
                wrong.append(f"record {n} read at {seen[n]} and at ({p}, {m.offset()})")
            seen[n] = (p, m.offset())
            if want.get(n) != (key, value, hdrs):
                wrong.append(f"[{p}] offset {m.offset()}: read {key!r:.40} {value!r:.40} {hdrs}, "
                             f"produced {str(want.get(n))[:120]}")
        check([m.offset() for m in msgs] == list(range(len(msgs))), f"{topic}[{p}]: offsets not 0..{len(msgs) - 1}")
        check(numbers == sorted(numbers), f"{topic}[{p}]: records not in production order")
        check(all(m.timestamp()[0] == TIMESTAMP_CREATE_TIME for m in msgs), f"{topic}[{p}]: not CreateTime")
    check(not wrong, f"{topic}: {len(wrong)} records read differ from those produced: {wrong[:3]}")
    missing = sorted(set(want) - set(seen))
    check(not missing, f"{topic}: {len(missing)} records never read, e.g. {missing[:5]}")
    check_same(topic, "kcat -C vs confluent-kafka", kcat_read(cluster.bootstrap, topic), read)
    check_stored_codecs(cluster, topic, shared.PARTITIONS, cluster.client_codec(codec), len(want), by_client=True)


def test_confluent_round_trip(cluster, codec):
    topic = f"ck-{codec}"
    messages = shared.make_messages(3000, seed=topic)
    delivered = shared.produce(cluster.bootstrap, topic, messages, {"enable.idempotence": True, "compression.type": codec})
    shared.check_delivery_offsets(topic, delivered)
    got = shared.check_read_back(cluster.consumer, topic, messages, delivered)
    check_same(topic, "kcat -C vs confluent-kafka", kcat_read(cluster.bootstrap, topic), ck_records(got))
    check_stored_codecs(cluster, topic, shared.PARTITIONS, cluster.client_codec(codec), len(messages), by_client=True)


# ---- 2. offsets_for_times ----------------------------------------------------------

def kcat_offsets_for_times(bootstrap, partitions, target):
    """{(topic, partition): offset} from kcat -Q for every (topic, partition) at target."""
    args = [a for topic, p in partitions for a in ("-t", f"{topic}:{p}:{target}")]
    out = subprocess.run(["kcat", "-Q", "-b", bootstrap, *args], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    answers = {}
    for line in out.stdout.splitlines():
        # "TOPIC [P] offset N"
        parts = line.split()
        if len(parts) == 4 and parts[2] == "offset":
            answers[(parts[0], int(parts[1].strip("[]")))] = int(parts[3])
    check(out.returncode == 0, f"kcat -Q at {target} exited {out.returncode}: {out.stderr[-200:]}")
    return answers


def check_offsets_for_times(cluster, stamps, targets, what):
    """stamps: {(topic, partition): [timestamp at offset 0, 1, ...]}. For every target
    both clients answer the first offset with a timestamp >= target (OFFSET_END if none)."""
    tps = sorted(stamps)
    for target in targets:
        want = {tp: next((o for o, ts in enumerate(stamps[tp]) if ts >= target), OFFSET_END) for tp in tps}
        result = cluster.consumer.offsets_for_times([TopicPartition(t, p, target) for t, p in tps], timeout=TIMEOUT)
        got = {(tp.topic, tp.partition): tp.offset for tp in result}
        errors = [tp.error for tp in result if tp.error is not None]
        check(got == want and not errors,
              f"{what}: offsets_for_times({target}) = {got} {errors}, the first offsets at or after it are {want}")
        by_kcat = kcat_offsets_for_times(cluster.bootstrap, tps, target)
        check(by_kcat == want, f"{what}: kcat -Q at {target} = {by_kcat}, the first offsets at or after it are {want}")


def test_offsets_for_times_in_batches(cluster):
    base = int(time.time() * 1000) - 3_600_000
    count, flushes = 1000, 4
    timestamps = [base + 2 * i for i in range(count)]
    stamps, batch_starts = {}, set()
    for codec in CODECS[1:]:
        topic = f"times-{codec}"
        messages = [(b"k%d" % i, b"timed record %d " % i * (1 + i % 20), [("i", b"%d" % i)], 0) for i in range(count)]
        step = count // flushes
        for start in range(0, count, step):  # each flush ends a batch
            delivered = shared.produce(cluster.bootstrap, topic, messages[start:start + step],
                                       {"enable.idempotence": True, "compression.type": codec, "linger.ms": 500},
                                       timestamps[start:start + step])
            shared.check_delivery_offsets(topic, delivered, {0: start})
        batches = check_stored_codecs(cluster, topic, 1, codec, count, by_client=codec != "lz4")
        check(batches and max(b["count"] for b in batches) >= 100,
              f"{topic}: the largest stored batch holds {max((b['count'] for b in batches), default=0)} records, "
              f"expected 100+ (linger.ms and four flushes of {step})")
        batch_starts |= {b["baseOffset"] for b in batches}
        print(f"{topic}: {len(batches)} batches of {[b['count'] for b in batches]} records", file=sys.stderr)
        stamps[(topic, 0)] = timestamps
        got = shared.consume_all(cluster.consumer, topic, {0: 0})
        read = [(m.key(), m.value(), m.headers(), m.timestamp()) for m in got[0]]
        want = [(k, v, h, (TIMESTAMP_CREATE_TIME, ts)) for (k, v, h, _), ts in zip(messages, timestamps)]
        check(read == want, f"{topic}: read back {len(read)} records that differ from the {count} produced")
    rng = random.Random(11)
    inside = [700, 701, 1, 999, 251, 499, 501] + rng.sample(range(count), 12)
    targets = [base - 5000, base, timestamps[-1], timestamps[-1] + 1]
    targets += [base + 2 * i for i in inside] + [base + 2 * i - 1 for i in inside]
    # The lookups must land inside batches: answering a batch's first offset must fail.
    strictly_inside = [i for i in inside if i not in batch_starts]
    check(len(strictly_inside) >= 10, f"only {strictly_inside} of the looked-up offsets lie inside a stored batch "
                                      f"(batches start at {sorted(batch_starts)})")
    check_offsets_for_times(cluster, stamps, targets, "times-*")


# ---- 3. topic compression.type -----------------------------------------------------

def produce_from_every_codec(cluster, topic, per_codec, base):
    """Idempotent producers of each codec in turn: (messages, delivered, timestamps,
    {(partition, offset): the codec of its producer})."""
    messages, timestamps, delivered, codec_at = [], [], {}, {}
    for codec in CODECS:
        part = shared.make_messages(per_codec, seed=f"{topic}-{codec}")
        stamps = [base + len(messages) + i for i in range(per_codec)]
        starts = {p: len(r) for p, r in delivered.items()}
        got = shared.produce(cluster.bootstrap, topic, part, {"enable.idempotence": True, "compression.type": codec},
                             stamps)
        shared.check_delivery_offsets(f"{topic} from {codec}", got, starts)
        for p, reports in got.items():
            delivered.setdefault(p, []).extend((i + len(messages), o, ts) for i, o, ts in reports)
            codec_at.update(((p, o), codec) for _, o, _ in reports)
        messages += part
        timestamps += stamps
    return messages, delivered, timestamps, codec_at


def test_topic_compression_type(cluster):
    base = int(time.time() * 1000) - 7_200_000
    for setting in ("zstd", "uncompressed", "gzip", "snappy", "lz4", "producer"):
        topic = f"recompress-{setting}"
        messages, delivered, timestamps, codec_at = produce_from_every_codec(cluster, topic, 400, base)
        got = shared.check_read_back(cluster.consumer, topic, messages, delivered, timestamps)
        check_same(topic, "kcat -C vs confluent-kafka", kcat_read(cluster.bootstrap, topic), ck_records(got))
        if setting == "producer":  # each batch as its producer wrote it
            batches = check_stored_codecs(cluster, topic, shared.PARTITIONS,
                                          lambda p, o: cluster.client_codec(codec_at[(p, o)]), len(messages),
                                          by_client=True)
            kept = {b["compression"] for b in batches}
            check(kept >= {cluster.client_codec(c) for c in CODECS},
                  f"{topic}: stored codecs {sorted(kept)}, produced {list(CODECS)}")
        else:
            want = "none" if setting == "uncompressed" else setting
            batches = check_stored_codecs(cluster, topic, shared.PARTITIONS, want, len(messages))
        anonymous = [b["baseOffset"] for b in batches if b["producerId"] < 0 or b["baseSequence"] < 0]
        check(not anonymous, f"{topic}: stored batches lost their producer id or sequence at offsets {anonymous[:5]}")
        stamps = {(topic, p): [timestamps[i] for i, _, _ in delivered.get(p, [])] for p in range(shared.PARTITIONS)}
        rng = random.Random(setting)
        check_offsets_for_times(cluster, stamps, [base - 1, timestamps[-1] + 1] +
                                [rng.choice(timestamps) + rng.choice((0, 1)) for _ in range(6)], topic)
        print(f"{topic}: {len(batches)} batches, stored as {sorted({b['compression'] for b in batches})}",
              file=sys.stderr)


# ---- 4. LogAppendTime --------------------------------------------------------------

def kcat_timestamp_types(bootstrap, topic):
    """{(partition, offset): (tstype, ts)} read by kcat -C -J."""
    out = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-e", "-q", "-o", "beginning", "-J"],
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    check(out.returncode == 0, f"kcat -C -J {topic} exited {out.returncode}")
    return {(j["partition"], j["offset"]): (j["tstype"], j["ts"]) for j in map(json.loads, out.stdout.splitlines())}


def test_log_append_time(cluster):
    for topic, stored_as in (("appended", None), ("appended-gzip", "gzip")):
        offsets, windows, reported = 0, [], {}
        for codec in CODECS[1:]:
            messages = [(b"k%d" % i, b"appended %d " % i * (1 + i % 30), None, 0) for i in range(300)]
            before = int(time.time() * 1000)
            delivered = shared.produce(cluster.bootstrap, topic, messages,
                                       {"enable.idempotence": True, "compression.type": codec, "linger.ms": 200},
                                       timestamps=[1_000_000 + i for i in range(len(messages))])
            after = int(time.time() * 1000)
            shared.check_delivery_offsets(f"{topic} from {codec}", delivered, {0: offsets})
            for _, o, ts in delivered.get(0, []):
                reported[o] = ts
            windows.append((offsets, offsets + len(messages), before, after))
            offsets += len(messages)
            time.sleep(0.005)  # the next producer's batches get a later millisecond
        stamped = {o: ts for o, ts in reported.items()
                   if ts[0] != TIMESTAMP_LOG_APPEND_TIME or not any(lo <= o < hi and b <= ts[1] <= a
                                                                     for lo, hi, b, a in windows)}
        check(not stamped, f"{topic}: delivery reports without the broker's append time: {list(stamped.items())[:3]}")
        batches = check_stored_codecs(cluster, topic, 1,
                                      stored_as or (lambda p, o: cluster.client_codec(CODECS[1 + o // 300])), offsets,
                                      by_client=stored_as is None)
        wrong = [b["baseOffset"] for b in batches if b["timestampType"] != "LogAppendTime"
                 or b["maxTimestamp"] != reported.get(b["baseOffset"], (0, -1))[1]]
        check(not wrong, f"{topic}: stored batches at {wrong[:5]} are not LogAppendTime with the reported time")
        got = shared.consume_all(cluster.consumer, topic, {0: 0})[0]
        read = {m.offset(): m.timestamp() for m in got}
        check(read == reported, f"{topic}: consumed timestamps differ from the delivery reports' at "
                                f"{sorted(o for o in set(read) | set(reported) if read.get(o) != reported.get(o))[:5]}")
        by_kcat = kcat_timestamp_types(cluster.bootstrap, topic)
        want = {(0, o): ("logappend", ts) for o, (_, ts) in reported.items()}
        check_same(topic, "kcat -C -J timestamps vs delivery reports", by_kcat, want)
        append_times = [reported.get(o, (0, -1))[1] for o in range(offsets)]
        # 1_000_100 is a record's own CreateTime inside the first batch: the lookup goes by
        # append time, so offset 0 answers it.
        targets = [0, 1_000_100] + [t + d for t in sorted(set(append_times)) for d in (0, 1)]
        check_offsets_for_times(cluster, {(topic, 0): append_times}, targets, topic)
        print(f"{topic}: append times {sorted(set(append_times))}", file=sys.stderr)


# ---- 5. raw produce of valid and corrupt batches -----------------------------------

def crc32c(data):
    """CRC-32C (Castagnoli), a RecordBatch's checksum from its attributes on."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC32C_TABLE = _crc32c_table()


def varint(n):
    """A zigzag varint (Kafka's record fields)."""
    z = (n << 1) ^ (n >> 63)
    out = b""
    while True:
        if z < 0x80:
            return out + bytes([z])
        out += bytes([(z & 0x7F) | 0x80])
        z >>= 7



def encode_records(records, base_ts):
    """The records section of a batch: records are (key, value, headers, timestamp)."""
    def nullable(b):
        return varint(-1) if b is None else varint(len(b)) + b
    out = b""
    for delta, (key, value, headers, ts) in enumerate(records):
        body = (b"\x00" + varint(ts - base_ts) + varint(delta) + nullable(key) + nullable(value) +
                varint(len(headers)) + b"".join(varint(len(k)) + k.encode() + nullable(v) for k, v in headers))
        out += varint(len(body)) + body
    return out


def record_batch(records, codec_id, payload=None):
    """A RecordBatch v2 with a valid CRC; payload replaces the (compressed) records section."""
    base_ts = records[0][3]
    section = payload if payload is not None else encode_records(records, base_ts)
    after_crc = (struct.pack(">hiqqqhii", codec_id, len(records) - 1, base_ts, max(r[3] for r in records),
                             -1, -1, -1, len(records)) + section)
    after_length = struct.pack(">ib", -1, 2) + struct.pack(">I", crc32c(after_crc)) + after_crc
    return struct.pack(">qi", 0, len(after_length)) + after_length


def snappy_raw(data):
    """A raw snappy block of literals only (valid snappy: a decoder must accept it)."""
    out = uvarint(len(data))
    for at in range(0, len(data), 65536):
        chunk = data[at:at + 65536]
        out += bytes([61 << 2]) + struct.pack("<H", len(chunk) - 1) + chunk
    return out


def snappy_xerial(data, block=32 * 1024):
    """The xerial framing the Java client writes: magic, versions, length-prefixed blocks."""
    out = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    for at in range(0, len(data), block):
        compressed = snappy_raw(data[at:at + block])
        out += struct.pack(">i", len(compressed)) + compressed
    return out


def xxh32_short(data, seed=0):
    """xxHash32 of fewer than 16 bytes (an LZ4 frame descriptor's checksum)."""
    assert len(data) < 16
    mask, p1, p2, p3, p4, p5 = 0xFFFFFFFF, 2654435761, 2246822519, 3266489917, 668265263, 374761393

    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & mask
    h = (seed + p5 + len(data)) & mask
    at = 0
    while at + 4 <= len(data):
        h = rotl((h + struct.unpack_from("<I", data, at)[0] * p3) & mask, 17) * p4 & mask
        at += 4
    for byte in data[at:]:
        h = rotl((h + byte * p5) & mask, 11) * p1 & mask
    h ^= h >> 15
    h = h * p2 & mask
    h ^= h >> 13
    h = h * p3 & mask
    return h ^ (h >> 16)


def lz4_frame(data, block=32 * 1024):
    """An LZ4 frame as Kafka clients write it (independent blocks of at most 64 KiB, no
    checksums): blocks alternate between one LZ4 sequence of literals only (valid LZ4) and
    stored uncompressed (the size's high bit). Checked against the lz4 tool's decoder."""
    descriptor = bytes([0x60, 0x40])  # version 1, independent blocks; 64 KiB maximum
    out = b"\x04\x22\x4d\x18" + descriptor + bytes([(xxh32_short(descriptor) >> 8) & 0xFF])
    for n, at in enumerate(range(0, len(data), block)):
        chunk = data[at:at + block]
        if n % 2:
            out += struct.pack("<I", len(chunk) | 0x80000000) + chunk
            continue
        extra = len(chunk) - 15
        sequence = bytes([min(len(chunk), 15) << 4])
        if extra >= 0:
            sequence += b"\xff" * (extra // 255) + bytes([extra % 255])
        sequence += chunk
        out += struct.pack("<I", len(sequence)) + sequence
    return out + b"\0\0\0\0"


def make_records(tag, count, ts, big=False):
    return [(b"%s-key-%d" % (tag, i), (b"%s value %d " % (tag, i)) * (800 if big else 3),
             [("tag", tag), ("i", b"%d" % i)], ts + i) for i in range(count)]


def wire_string(s, flexible):
    """A nullable string: int16 length, or (flexible versions) unsigned varint length + 1, 0 for null."""
    if s is None:
        return uvarint(0) if flexible else struct.pack(">h", -1)
    b = s.encode()
    return (uvarint(len(b) + 1) if flexible else struct.pack(">h", len(b))) + b


def wire_bytes(b, flexible):
    return (uvarint(len(b) + 1) if flexible else struct.pack(">i", len(b))) + b


def wire_array(items, flexible):
    """An array of encoded items: int32 count, or (flexible versions) unsigned varint count + 1."""
    return (uvarint(len(items) + 1) if flexible else struct.pack(">i", len(items))) + b"".join(items)


def no_tagged_fields(flexible):
    return b"\x00" if flexible else b""


class Decoder:
    """Reads a response body front to back: fixed-width fields, and strings, arrays and
    bytes with classic lengths (int16, int32) or flexible ones (unsigned varint length + 1,
    0 for null) followed by tagged fields, which are skipped."""

    def __init__(self, data, flexible):
        self.data, self.flexible, self.at = data, flexible, 0

    def take(self, fmt):
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return values

    def length(self, classic_fmt):
        """-1 for null."""
        if not self.flexible:
            return self.take(classic_fmt)[0]
        n, self.at = uvarint_at(self.data, self.at)
        return n - 1

    def array(self):
        return max(self.length(">i"), 0)

    def nullable_bytes(self):
        n = self.length(">i")
        if n < 0:
            return None
        self.at += n
        return self.data[self.at - n:self.at]

    def nullable_string(self):
        n = self.length(">h")
        if n < 0:
            return None
        self.at += n
        return self.data[self.at - n:self.at].decode(errors="replace")

    def tagged_fields(self):
        if self.flexible:
            self.at = skip_tagged_fields(self.data, self.at)


def produce_raw(sock, correlation, topic, batches, version=8):
    """One Produce (acks 1) of {partition: batch bytes} at version 3+ (flexible from v9):
    {partition: (error, base offset, error message; None before v8)}."""
    flexible = version >= 9
    partitions = [struct.pack(">i", p) + wire_bytes(batch, flexible) + no_tagged_fields(flexible)
                  for p, batch in batches.items()]
    topics = [wire_string(topic, flexible) + wire_array(partitions, flexible) + no_tagged_fields(flexible)]
    body = (wire_string(None, flexible) + struct.pack(">hi", 1, 10_000) + wire_array(topics, flexible) +
            no_tagged_fields(flexible))  # transactional id null, acks 1, timeout
    r = Decoder(kafka_call(sock, PRODUCE, version, correlation, body, flexible), flexible)
    answers = {}
    for _ in range(r.array()):
        r.nullable_string()
        for _ in range(r.array()):
            index, error, base_offset, _ = r.take(">ihqq")  # ... log append time
            if version >= 5:
                r.take(">q")  # log start offset
            message = None
            if version >= 8:
                for _ in range(r.array()):  # record errors: batch index, message
                    r.take(">i")
                    r.nullable_string()
                    r.tagged_fields()
                message = r.nullable_string()
            r.tagged_fields()
            answers[index] = (error, base_offset, message)
        r.tagged_fields()
    return answers


def api_versions(sock):
    """{API key: (min version, max version)} of an ApiVersions v0 answer."""
    r = kafka_call(sock, 18, 0, 7, b"")
    (error, count) = struct.unpack_from(">hi", r, 0)
    if error != 0:
        check(False, f"ApiVersions v0 answered error {error}")
    return {key: (lo, hi) for key, lo, hi in (struct.unpack_from(">hhh", r, 6 + 6 * i) for i in range(count))}


def two_partitions_on_one_broker(cluster, topic, partitions):
    by_leader = {}
    for p in range(partitions):
        by_leader.setdefault(cluster.leader(topic, p), []).append(p)
    leader, ps = next((b, ps) for b, ps in sorted(by_leader.items()) if len(ps) >= 2)
    return leader, ps[0], ps[1]


def corrupt_batches(ts):
    """(what, batch) pairs every broker must refuse, all with valid CRCs."""
    records = make_records(b"bad", 5, ts, big=True)
    section = encode_records(records, ts)
    gz = gzip.compress(section)
    rng = random.Random(5)
    noise = bytes(rng.getrandbits(8) for _ in range(600))
    xerial = snappy_xerial(section)
    lz4 = lz4_frame(section)
    return [
        ("gzip: random bytes", record_batch(records, 1, noise)),
        ("gzip: truncated stream", record_batch(records, 1, gz[:len(gz) // 2])),
        ("gzip: bytes after the stream", record_batch(records, 1, gz + b"not another gzip member")),
        ("gzip: good stream, garbage records", record_batch(records, 1, gzip.compress(noise))),
        ("gzip: empty", record_batch(records, 1, b"")),
        ("gzip: decompresses past the bound (17 MiB of zeros)", record_batch(records[:1], 1,
                                                                             gzip.compress(bytes(17 << 20)))),
        ("snappy: random bytes", record_batch(records, 2, noise)),
        ("snappy: raw block cut short", record_batch(records, 2, snappy_raw(section)[:-40])),
        ("snappy: xerial block cut short", record_batch(records, 2, xerial[:len(xerial) - 100])),
        ("snappy: xerial header only, garbage block", record_batch(records, 2, xerial[:16] + struct.pack(">i", 50) +
                                                                    noise[:50])),
        ("lz4: random bytes", record_batch(records, 3, noise)),
        ("lz4: frame magic, then garbage", record_batch(records, 3, b"\x04\x22\x4d\x18" + noise)),
        ("lz4: frame cut short", record_batch(records, 3, lz4[:len(lz4) - 30])),
        ("lz4: wrong descriptor checksum", record_batch(records, 3, lz4[:6] + bytes([lz4[6] ^ 0xFF]) + lz4[7:])),
        ("zstd: random bytes", record_batch(records, 4, noise)),
        ("zstd: frame magic, then garbage", record_batch(records, 4, b"\x28\xb5\x2f\xfd" + noise)),
        ("codec id 5", record_batch(records, 5, gz)),
    ]


def check_appended(topic, stored, what, p, records, answer):
    """A produce answer appended records at the end of stored[p] (the records partition p
    holds, in order), which then holds them too."""
    error, base, message = answer
    if check(error == 0 and base == len(stored[p]),
             f"{topic}[{p}] {what}: error {error} ({message}) base offset {base}, expected 0 and {len(stored[p])}"):
        stored[p].extend(records)


def check_raw_read_back(cluster, topic, stored):
    """confluent-kafka and kcat -C read back exactly stored ({partition: records})."""
    want = {(p, o): (k, v, tuple(h), t) for p, records in stored.items() for o, (k, v, h, t) in enumerate(records)}
    read = ck_records(shared.consume_all(cluster.consumer, topic, {p: 0 for p in stored}))
    check_same(topic, "confluent-kafka vs produced", read, want)
    by_kcat = {k: v for k, v in kcat_read(cluster.bootstrap, topic).items() if k[0] in stored}
    check_same(topic, "kcat -C vs produced", by_kcat, want)


def gzip_batch(records):
    return record_batch(records, 1, gzip.compress(encode_records(records, records[0][3])))


def test_raw_produce(cluster):
    topic, partitions = "raw", 4
    leader, pa, pb = two_partitions_on_one_broker(cluster, topic, partitions)
    sock = connect_when_listening(cluster.address(leader), 30)
    ts = int(time.time() * 1000) - 60_000
    stored = {pa: [], pb: []}  # what each partition must hold, in order
    correlation = iter(range(100, 10_000))

    def accepted(what, p, records, answer):
        check_appended(topic, stored, what, p, records, answer)

    good = [("gzip", make_records(b"gzip", 4, ts), lambda s: (1, gzip.compress(s))),
            ("raw snappy", make_records(b"snappy", 4, ts + 10), lambda s: (2, snappy_raw(s))),
            ("xerial snappy, several blocks", make_records(b"xerial", 6, ts + 20, big=True),
             lambda s: (2, snappy_xerial(s))),
            ("lz4 frame, several blocks", make_records(b"lz4", 6, ts + 30, big=True), lambda s: (3, lz4_frame(s)))]
    for what, records, encode in good:
        codec_id, payload = encode(encode_records(records, records[0][3]))
        answer = produce_raw(sock, next(correlation), topic, {pa: record_batch(records, codec_id, payload)})
        accepted(what, pa, records, answer[pa])

    refused = []
    for what, batch in corrupt_batches(ts + 100):
        other = make_records(b"beside", 2, ts + 200)
        answer = produce_raw(sock, next(correlation), topic, {pa: batch, pb: gzip_batch(other)})
        error, base, message = answer[pa]
        check(error in (CORRUPT_MESSAGE, INVALID_RECORD) and base == -1,
              f"{topic}[{pa}] {what}: error {error} base offset {base} ({message}), "
              f"expected CORRUPT_MESSAGE or INVALID_RECORD")
        refused.append(f"{what}: {error} {message}")
        accepted(f"beside a corrupt batch ({what})", pb, other, answer[pb])
    print(f"{topic}: refused\n  " + "\n  ".join(refused), file=sys.stderr)
    # The broker goes on serving the same connection and stored nothing of what it refused.
    after = make_records(b"after", 3, ts + 300)
    answer = produce_raw(sock, next(correlation), topic, {pa: record_batch(after, 0)})
    accepted("uncompressed after the corrupt batches", pa, after, answer[pa])
    check(fetch_error(sock, topic, pa) == 0, f"{topic}[{pa}]: a Fetch after the corrupt produces failed")
    sock.close()
    check(cluster.broker_alive(leader), f"broker {leader} is gone after the corrupt produces")

    check_raw_read_back(cluster, topic, stored)
    codecs = [b["compression"] for b in cluster.stored_batches(topic, pa)]
    check(codecs == ["gzip", "snappy", "snappy", "lz4", "none"],
          f"{topic}[{pa}]: stored batches {codecs}, produced gzip, snappy, snappy (xerial), lz4, none")

    # A topic recompressing to zstd decodes the xerial and raw snappy batches and refuses a corrupt one.
    topic = "raw-zstd"
    sock = connect_when_listening(cluster.address(cluster.leader(topic, 0)), 30)
    records = (make_records(b"z-xerial", 6, ts, big=True) + make_records(b"z-raw", 3, ts + 50) +
               make_records(b"z-lz4", 6, ts + 60, big=True))
    batches = [record_batch(records[:6], 2, snappy_xerial(encode_records(records[:6], ts))),
               record_batch(records[6:9], 2, snappy_raw(encode_records(records[6:9], ts + 50))),
               record_batch(records[9:], 3, lz4_frame(encode_records(records[9:], ts + 60)))]
    answers = [produce_raw(sock, next(correlation), topic, {0: b})[0] for b in batches]
    check([a[:2] for a in answers] == [(0, 0), (0, 6), (0, 9)],
          f"{topic}: the snappy and lz4 batches were answered {answers}")
    what, corrupt = corrupt_batches(ts)[1]
    error, _, message = produce_raw(sock, next(correlation), topic, {0: corrupt})[0]
    check(error in (CORRUPT_MESSAGE, INVALID_RECORD), f"{topic}: {what} answered {error} ({message})")
    sock.close()
    check_stored_codecs(cluster, topic, 1, "zstd", len(records))
    check_raw_read_back(cluster, topic, {0: records})


# ---- 6. zstd and the request versions older than it -------------------------------

UNKNOWN_LEADER_EPOCH, UNSUPPORTED_COMPRESSION_TYPE = 75, 76
GZIP, ZSTD = 1, 4  # codec ids in a batch's attributes
PRODUCE_ZSTD, FETCH_ZSTD = 7, 10  # the first versions whose clients know zstd (KIP-110)
FETCH_ENCODED = 12  # fetch_raw's newest version: v13 names topics by id


def zstd_frame(data, block=32 * 1024):
    """A zstd frame (RFC 8878) of raw blocks, which any decoder must accept: a single-segment
    header with a 4-byte content size, no dictionary, no checksum. Checked against the zstd tool."""
    out = b"\x28\xb5\x2f\xfd" + bytes([0xA0]) + struct.pack("<I", len(data))
    chunks = [data[at:at + block] for at in range(0, len(data), block)] or [b""]
    for n, chunk in enumerate(chunks):
        last = n == len(chunks) - 1
        out += struct.pack("<I", len(chunk) << 3 | int(last))[:3] + chunk  # block type 0: raw
    return out


def zstd_batch(records):
    return record_batch(records, ZSTD, zstd_frame(encode_records(records, records[0][3])))


def fetch_raw(sock, correlation, version, offsets, current_leader_epoch=-1):
    """One consumer Fetch (no wait, READ_UNCOMMITTED, a full fetch outside any session) at
    version 4-12 of {(topic, partition): fetch offset}: {(topic, partition): (error, high
    watermark, records or None)}. The top-level error (v7+) must be 0. The leader epoch
    (v9+) is -1, not known, unless given."""
    flexible = version >= 12
    by_topic = {}
    for (topic, p), offset in offsets.items():
        by_topic.setdefault(topic, []).append((p, offset))
    topics = []
    for topic, partitions in by_topic.items():
        entries = []
        for p, offset in partitions:
            entry = struct.pack(">i", p)
            if version >= 9:
                entry += struct.pack(">i", current_leader_epoch)
            entry += struct.pack(">q", offset)
            if version >= 12:
                entry += struct.pack(">i", -1)  # last fetched epoch: none
            if version >= 5:
                entry += struct.pack(">q", -1)  # log start offset: a follower's only
            entries.append(entry + struct.pack(">i", 1 << 20) + no_tagged_fields(flexible))
        topics.append(wire_string(topic, flexible) + wire_array(entries, flexible) + no_tagged_fields(flexible))
    body = struct.pack(">iiiib", -1, 0, 1, 1 << 20, 0)  # consumer, max wait, min bytes, max bytes, isolation
    if version >= 7:
        body += struct.pack(">ii", 0, -1)  # session id, session epoch
    body += wire_array(topics, flexible)
    if version >= 7:
        body += wire_array([], flexible)  # forgotten topics
    if version >= 11:
        body += wire_string("", flexible)  # rack id
    r = Decoder(kafka_call(sock, FETCH, version, correlation, body + no_tagged_fields(flexible), flexible), flexible)
    r.take(">i")  # throttle time
    if version >= 7:
        (error, _) = r.take(">hi")  # ... session id
        check(error == 0, f"Fetch v{version}: top-level error {error}")
    answers = {}
    for _ in range(r.array()):
        topic = r.nullable_string()
        for _ in range(r.array()):
            index, error, high_watermark, _ = r.take(">ihqq")  # ... last stable offset
            if version >= 5:
                r.take(">q")  # log start offset
            for _ in range(r.array()):  # aborted transactions (nullable)
                r.take(">qq")
                r.tagged_fields()
            if version >= 11:
                r.take(">i")  # preferred read replica
            answers[(topic, index)] = (error, high_watermark, r.nullable_bytes())
            r.tagged_fields()
        r.tagged_fields()
    return answers


def fetched_batches(records):
    """(base offset, record count, codec id, CRC valid) of each whole batch in a Fetch's records."""
    batches, at = [], 0
    while at + 61 <= len(records or b""):
        base_offset, length = struct.unpack_from(">qi", records, at)
        end = at + 12 + length
        if end > len(records):
            break  # a batch cut at the fetch's size limit
        crc, attributes = struct.unpack_from(">Ih", records, at + 17)
        (count,) = struct.unpack_from(">i", records, at + 57)
        batches.append((base_offset, count, attributes & 7, crc == crc32c(records[at + 21:end])))
        at = end
    return batches


def versions_to_test(api, wanted, advertised, below):
    """The versions of wanted that the broker serves: one under the advertised range is
    replaced by its minimum (a NOTE says so), those not below `below` or above the range drop."""
    lo, hi = advertised
    chosen = []
    for v in wanted:
        if v < lo:
            print(f"NOTE: {api} v{v} is below the advertised minimum v{lo}; testing v{lo} instead", file=sys.stderr)
            v = lo
        if v <= hi and v < below and v not in chosen:
            chosen.append(v)
    return chosen


def test_zstd_produce_versions(cluster, old_versions, new_versions):
    """zstd in Produce older than v7 is refused per partition with UNSUPPORTED_COMPRESSION_TYPE
    and not stored; v7 and the newest version append the same batch."""
    topic = "zstd-versions"
    leader, pa, pb = two_partitions_on_one_broker(cluster, topic, 4)
    ts = int(time.time() * 1000) - 30_000
    records = make_records(b"zstd", 5, ts, big=True)  # two 32 KiB blocks
    batch = zstd_batch(records)
    stored = {pa: [], pb: []}
    answers = []
    with connect_when_listening(cluster.address(leader), 30) as sock:
        correlation = iter(range(20_000, 30_000))
        for v in old_versions:
            beside = make_records(b"beside-v%d" % v, 2, ts + 100 + v)
            answer = produce_raw(sock, next(correlation), topic, {pa: batch, pb: gzip_batch(beside)}, version=v)
            error, base, message = answer[pa]
            check(error == UNSUPPORTED_COMPRESSION_TYPE and base == -1,
                  f"{topic}[{pa}] zstd in Produce v{v}: error {error} base offset {base} ({message}), expected "
                  f"UNSUPPORTED_COMPRESSION_TYPE ({UNSUPPORTED_COMPRESSION_TYPE}) and -1")
            check_appended(topic, stored, f"gzip beside a zstd batch in Produce v{v}", pb, beside, answer[pb])
            answers.append(f"Produce v{v}: [{pa}] {answer[pa]}, [{pb}] {answer[pb]}")
        for v in new_versions:
            answer = produce_raw(sock, next(correlation), topic, {pa: batch, pb: batch}, version=v)
            for p in (pa, pb):
                check_appended(topic, stored, f"zstd in Produce v{v}", p, records, answer[p])
            answers.append(f"Produce v{v}: [{pa}] {answer[pa]}, [{pb}] {answer[pb]}")
    print(f"{topic}: zstd batch to [{pa}], beside it [{pb}]\n  " + "\n  ".join(answers), file=sys.stderr)
    # Nothing of the refused batches is stored: the log holds what was accepted, in order.
    accepted = ["zstd"] * len(new_versions)
    for p, want in ((pa, accepted), (pb, ["gzip"] * len(old_versions) + accepted)):
        codecs = [b["compression"] for b in cluster.stored_batches(topic, p)]
        check(codecs == want, f"{topic}[{p}]: stored batches {codecs}, expected {want}")
    check_raw_read_back(cluster, topic, stored)


def co_led_partitions(cluster, topic_a, topic_b, partitions):
    """(leader, partition of topic_a, partition of topic_b) with the same leader. Placement
    evens out leaderships, so each topic's 3 partitions have at least two of the three
    brokers as leaders and the two topics share one."""
    leaders_b = {cluster.leader(topic_b, p): p for p in range(partitions)}
    for p in range(partitions):
        leader = cluster.leader(topic_a, p)
        if leader in leaders_b:
            return leader, p, leaders_b[leader]
    raise TestFailed(f"no broker leads a partition of both {topic_a} and {topic_b}")


def test_zstd_fetch_versions(cluster, old_versions, new_versions):
    """A Fetch older than v10 of a partition of a compression.type=zstd topic is answered
    UNSUPPORTED_COMPRESSION_TYPE for that partition; another topic's partition in the same
    request, and the same partition in Fetch v10+, get their records."""
    topic, beside_topic = "zstd-fetch", "zstd-fetch-beside"
    leader, zp, bp = co_led_partitions(cluster, topic, beside_topic, 3)
    ts = int(time.time() * 1000) - 20_000
    records = make_records(b"fetch-gzip", 3, ts) + make_records(b"fetch-zstd", 4, ts + 10, big=True)
    beside = make_records(b"fetch-beside", 3, ts + 20)
    stored, stored_beside = {zp: []}, {bp: []}
    # (base offset, count, codec, CRC valid) of the batches each fetch must return: the
    # gzip batch is recompressed to the topic's zstd.
    want = [(0, 3, ZSTD, True), (3, 4, ZSTD, True)]
    want_beside = [(0, 3, GZIP, True)]
    answers = []
    with connect_when_listening(cluster.address(leader), 30) as sock:
        correlation = iter(range(30_000, 40_000))
        for part, batch in ((records[:3], gzip_batch(records[:3])), (records[3:], zstd_batch(records[3:]))):
            answer = produce_raw(sock, next(correlation), topic, {zp: batch}, version=PRODUCE_ZSTD)
            check_appended(topic, stored, "a Produce v7", zp, part, answer[zp])
        answer = produce_raw(sock, next(correlation), beside_topic, {bp: gzip_batch(beside)}, version=PRODUCE_ZSTD)
        check_appended(beside_topic, stored_beside, "a Produce v7", bp, beside, answer[bp])
        for v in old_versions + new_versions:
            answer = fetch_raw(sock, next(correlation), v, {(topic, zp): 0, (beside_topic, bp): 0})
            error, high_watermark, data = answer.get((topic, zp), (None, None, None))
            if v < FETCH_ZSTD:
                check(error == UNSUPPORTED_COMPRESSION_TYPE and not data,
                      f"{topic}[{zp}] Fetch v{v}: error {error}, {len(data or b'')} bytes of records, expected "
                      f"UNSUPPORTED_COMPRESSION_TYPE ({UNSUPPORTED_COMPRESSION_TYPE}) and none")
            else:
                check(error == 0 and high_watermark == 7 and fetched_batches(data) == want,
                      f"{topic}[{zp}] Fetch v{v}: error {error}, high watermark {high_watermark}, batches "
                      f"{fetched_batches(data)}, expected 0, 7 and {want}")
            b_error, b_high_watermark, b_data = answer.get((beside_topic, bp), (None, None, None))
            check(b_error == 0 and b_high_watermark == 3 and fetched_batches(b_data) == want_beside,
                  f"{beside_topic}[{bp}] beside {topic} in Fetch v{v}: error {b_error}, high watermark "
                  f"{b_high_watermark}, batches {fetched_batches(b_data)}, expected 0, 3 and {want_beside}")
            answers.append(f"Fetch v{v}: {topic}[{zp}] error {error} high watermark {high_watermark} "
                           f"{len(data or b'')} bytes {fetched_batches(data)}; {beside_topic}[{bp}] error {b_error} "
                           f"{fetched_batches(b_data)}")
        # UNKNOWN_LEADER_EPOCH is 75, next to 76 (it once was 76 in Strata): an epoch beyond the leader's.
        v = new_versions[-1]
        error = fetch_raw(sock, next(correlation), v, {(beside_topic, bp): 0}, 1 << 30)[(beside_topic, bp)][0]
        check(error == UNKNOWN_LEADER_EPOCH, f"{beside_topic}[{bp}] Fetch v{v} in leader epoch 2^30: error {error}, "
                                             f"expected UNKNOWN_LEADER_EPOCH ({UNKNOWN_LEADER_EPOCH})")
        answers.append(f"Fetch v{v} in leader epoch 2^30: {beside_topic}[{bp}] error {error}")
    print(f"{topic} (compression.type=zstd):\n  " + "\n  ".join(answers), file=sys.stderr)
    check_raw_read_back(cluster, topic, stored)


def test_zstd_and_old_versions(cluster):
    advertised = cluster.api_versions()
    print(f"advertised: Produce v{advertised[PRODUCE][0]}-v{advertised[PRODUCE][1]}, "
          f"Fetch v{advertised[FETCH][0]}-v{advertised[FETCH][1]}", file=sys.stderr)
    produce_hi, fetch_hi = advertised[PRODUCE][1], advertised[FETCH][1]
    check(produce_hi >= PRODUCE_ZSTD and fetch_hi >= FETCH_ZSTD,
          f"the brokers advertise Produce up to v{produce_hi} and Fetch up to v{fetch_hi}, expected v7+ and v10+")
    test_zstd_produce_versions(cluster, versions_to_test("Produce", (3, 6), advertised[PRODUCE], PRODUCE_ZSTD),
                               sorted({PRODUCE_ZSTD, produce_hi}))
    test_zstd_fetch_versions(cluster, versions_to_test("Fetch", (4, 9), advertised[FETCH], FETCH_ZSTD),
                             versions_to_test("Fetch", (10, 11, 12), advertised[FETCH], FETCH_ENCODED + 1))


def main():
    bootstrap, directory, bin_dir = sys.argv[1:4]
    consumer = shared.new_consumer(bootstrap, "reader")
    cluster = Cluster(bootstrap, directory, bin_dir, consumer)
    steps = [(f"round trips {codec}", lambda c=codec: (test_kcat_round_trip(cluster, c),
                                                       test_confluent_round_trip(cluster, c))) for codec in CODECS]
    steps += [("offsets_for_times in compressed batches", lambda: test_offsets_for_times_in_batches(cluster)),
              ("topic compression.type", lambda: test_topic_compression_type(cluster)),
              ("LogAppendTime", lambda: test_log_append_time(cluster)),
              ("raw produce, corrupt batches", lambda: test_raw_produce(cluster)),
              ("zstd in old Produce and Fetch versions", lambda: test_zstd_and_old_versions(cluster))]
    try:
        for name, step in steps:
            started = time.monotonic()
            step()
            print(f"-- {name}: {time.monotonic() - started:.1f} s", file=sys.stderr)
    finally:
        consumer.close()
    if shared.FAILURES:
        print(f"{len(shared.FAILURES)} checks failed", file=sys.stderr)
        sys.exit(1)
    print("compression test passed")


if __name__ == "__main__":
    main()
