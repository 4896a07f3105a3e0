"""Produces records with acks=all and writes the value of each acknowledged one.

    /usr/bin/python3 produce_acked.py BOOTSTRAP TOPIC FIRST COUNT OUT_FILE [PARTITIONS]

Record i (FIRST <= i < FIRST + COUNT) goes to partition i % PARTITIONS (default 3), so
that every partition gets as many, with the value "record-<i>-" padded to 200 bytes, so
that every value is unique and segments roll. The idempotent producer (retries without
duplicates) waits up to 120 s for every delivery report; each acknowledged value is
appended to OUT_FILE, one per line. Prints "acked=N failed=M" and exits 0 (the caller
asserts); exit 1 only when the producer cannot be used at all.
Needs Debian's python3-confluent-kafka (/usr/bin/python3).
"""

import sys

from confluent_kafka import Producer


def main():
    bootstrap, topic, first, count, out_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    partitions = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    producer = Producer({
        "bootstrap.servers": bootstrap,
        "acks": "all",
        "enable.idempotence": True,
        "message.timeout.ms": 120000,
        "linger.ms": 5,
        "batch.size": 16384,  # well below the test topic's segment.bytes (a batch must fit a segment)
    })
    acked, failed = [], []

    def report(err, msg):
        if err is None:
            acked.append(msg.value().decode())
        else:
            failed.append((msg.value().decode(), str(err)))

    for i in range(first, first + count):
        value = f"record-{i}-".ljust(200, "x")
        while True:
            try:
                producer.produce(topic, value=value.encode(), partition=i % partitions, on_delivery=report)
                break
            except BufferError:  # the local queue is full: serve delivery reports first
                producer.poll(0.1)
        producer.poll(0)
    remaining = producer.flush(150)
    with open(out_path, "a") as out:
        for value in acked:
            out.write(value + "\n")
    for value, err in failed[:5]:
        print(f"failed: {value[:20]}: {err}", file=sys.stderr)
    print(f"acked={len(acked)} failed={len(failed)} unreported={remaining}")


if __name__ == "__main__":
    main()
