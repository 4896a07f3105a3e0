"""SASL with confluent-kafka (either librdkafka; sasl_clients_test.sh runs it).

argv: SASL_SSL bootstrap, SASL_PLAINTEXT bootstrap, CA file, the admin's password.
Checks, each with its own client:
  * PLAIN (admin), SCRAM-SHA-256 (alice), SCRAM-SHA-512 (carol) over SASL_SSL and
    SASL_PLAINTEXT: an acks=all idempotent producer's records all acknowledged and read
    back by a consumer group member authenticated the same way;
  * a wrong password, an unknown user and a mechanism the brokers do not enable
    (SCRAM-SHA-1 is not on offer; GSSAPI needs Kerberos, so OAUTHBEARER stands in) each
    end in an authentication error, never in a delivered record;
  * re-authentication (connections.max.reauth.ms=4000 on the brokers): a producer
    sending for 12 s, over three sessions, loses nothing; with librdkafka >= 2.2 it
    re-authenticates on its connections (KIP-368), with an older one the brokers close
    the expired connections and it reconnects.
"""

import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer

SASL_SSL, SASL_PLAINTEXT, CA, ADMIN_PASSWORD = sys.argv[1:5]
failures = []


def fail(message):
    print("FAILED:", message, file=sys.stderr)
    failures.append(message)


def config(listener, mechanism, user, password):
    c = {
        "bootstrap.servers": SASL_SSL if listener == "SASL_SSL" else SASL_PLAINTEXT,
        "security.protocol": listener,
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password,
    }
    if listener == "SASL_SSL":
        c["ssl.ca.location"] = CA
    return c


def produce(conf, topic, values):
    acked = []

    def delivered(err, msg):
        if err is None:
            acked.append(msg.value().decode())

    settings = dict(conf, **{"acks": "all", "enable.idempotence": True})
    settings.setdefault("message.timeout.ms", 20000)
    p = Producer(settings)
    for v in values:
        p.produce(topic, v.encode(), on_delivery=delivered)
        p.poll(0)
    p.flush(30)
    return acked


def consume(conf, topic, group, want):
    c = Consumer(dict(conf, **{"group.id": group, "auto.offset.reset": "earliest"}))
    c.subscribe([topic])
    got = set()
    deadline = time.time() + 60
    while time.time() < deadline and not want <= got:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            got.add(m.value().decode())
    c.close()
    return got


users = [("PLAIN", "admin", ADMIN_PASSWORD), ("SCRAM-SHA-256", "alice", "alice-secret"),
         ("SCRAM-SHA-512", "carol", "carol-secret")]
for listener in ("SASL_SSL", "SASL_PLAINTEXT"):
    for mechanism, user, password in users:
        conf = config(listener, mechanism, user, password)
        values = [f"py-{listener}-{mechanism}-{i}" for i in range(20)]
        acked = produce(conf, "sasl", values)
        if sorted(acked) != sorted(values):
            fail(f"{user} with {mechanism} over {listener}: {len(acked)} of {len(values)} acknowledged")
        got = consume(conf, "sasl", f"g-{listener}-{mechanism}", set(values))
        if not set(values) <= got:
            fail(f"{user} with {mechanism} over {listener}: read {len(set(values) & got)} of {len(values)} back")

def refused(conf, topic, errors):
    """A producer that must not get in: polls until the client reports an authentication
    (or transport) error, then purges its queued record; returns what was acknowledged
    meanwhile (nothing, if refused). The refusal waits for the error, not for
    message.timeout.ms."""
    acked = []
    p = Producer(dict(conf, **{"acks": "all", "message.timeout.ms": 15000, "error_cb": errors.append}))
    p.produce(topic, b"must-not-arrive", on_delivery=lambda err, msg: acked.append(msg) if err is None else None)
    deadline = time.time() + 15
    while time.time() < deadline and not any(e.code() in REFUSALS for e in errors):
        p.poll(0.1)
    p.purge()
    p.flush(5)
    return acked


REFUSALS = (KafkaError._AUTHENTICATION, KafkaError._ALL_BROKERS_DOWN, KafkaError._TRANSPORT)
for what, conf in [
    ("a wrong password", config("SASL_SSL", "SCRAM-SHA-512", "carol", "not-carols")),
    ("an unknown user", config("SASL_SSL", "SCRAM-SHA-256", "mallory", "x")),
    ("a wrong PLAIN password", config("SASL_PLAINTEXT", "PLAIN", "admin", "wrong")),
    ("a mechanism not enabled", dict(config("SASL_SSL", "OAUTHBEARER", "x", "y"),
                                     **{"sasl.oauthbearer.config": "principal=mallory",
                                        "enable.sasl.oauthbearer.unsecure.jwt": True})),
]:
    if conf["sasl.mechanism"] == "OAUTHBEARER":
        del conf["sasl.username"], conf["sasl.password"]
    errors = []
    if refused(conf, "sasl", errors):
        fail(f"{what}: a record was acknowledged")
    if not any(e.code() in REFUSALS for e in errors):
        fail(f"{what}: no authentication error, only {[str(e) for e in errors]}")

# Re-authentication: 12 s of records over 4 s sessions.
conf = config("SASL_SSL", "SCRAM-SHA-512", "carol", "carol-secret")
acked = []
p = Producer(dict(conf, **{"acks": "all", "enable.idempotence": True, "message.timeout.ms": 30000}))
sent = []
end = time.time() + 12
i = 0
while time.time() < end:
    v = f"reauth-{i}"
    sent.append(v)
    p.produce("sasl", v.encode(), on_delivery=lambda err, msg: acked.append(msg.value().decode()) if err is None else None)
    p.poll(0.05)
    i += 1
p.flush(60)
if sorted(acked) != sorted(sent):
    fail(f"re-authentication: {len(acked)} of {len(sent)} records acknowledged")
got = consume(conf, "sasl", "g-reauth", set(sent))
if not set(sent) <= got:
    fail(f"re-authentication: {len(set(sent) & got)} of {len(sent)} read back")

if failures:
    sys.exit(1)
print(f"sasl clients passed ({len(sent)} records across re-authentications)")
