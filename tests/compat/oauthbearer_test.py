"""OAUTHBEARER with confluent-kafka (either librdkafka; oauthbearer_test.sh runs it).

argv: the SASL_SSL bootstrap, the CA file, the signing key (PEM), another key (PEM).
Tokens are RS256 JWTs signed here with the openssl tool (header kid "test-key", the key
whose JWK the brokers read). Checked:
  * a producer and a group consumer whose oauth_cb hands out valid tokens (sub "erin",
    aud "kafka", 12 s of life) write and read everything, over 16 s: with
    connections.max.reauth.ms=60000 each session ends with its token and the client
    re-authenticates (librdkafka >= 2.2) or reconnects, with a fresh token each time;
  * an expired token, a token signed by another key, one for another audience and one
    with alg none each end in an authentication error and deliver nothing.
"""

import base64
import json
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer

BOOTSTRAP, CA, KEY, OTHER_KEY = sys.argv[1:5]
failures = []


def fail(message):
    print("FAILED:", message, file=sys.stderr)
    failures.append(message)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(key=KEY, lifetime=12, aud="kafka", alg="RS256", sub="erin"):
    now = int(time.time())
    header = {"alg": alg, "typ": "JWT", "kid": "test-key"}
    claims = {"sub": sub, "aud": aud, "iss": "https://issuer.test", "iat": now, "exp": now + lifetime}
    signed = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
    # What the client is told of the token's life: the JWT's own (it refreshes at 80% of
    # it), or for an expired token a time not past (librdkafka refuses an expired one
    # before sending it); the broker judges the JWT's exp.
    client_expiry = now + (lifetime if lifetime > 0 else 30)
    if alg == "none":
        return signed + ".", client_expiry
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key, "-binary"], input=signed.encode(),
                               capture_output=True, check=True).stdout
    return signed + "." + b64(signature), client_expiry


def config(make_token):
    return {
        "bootstrap.servers": BOOTSTRAP,
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "OAUTHBEARER",
        "ssl.ca.location": CA,
        "oauth_cb": lambda _config: make_token(),
    }


# Valid tokens, over several sessions.
acked, sent = [], []
p = Producer(dict(config(token), **{"acks": "all", "enable.idempotence": True, "message.timeout.ms": 30000}))
end = time.time() + 16
i = 0
while time.time() < end:
    v = f"oauth-{i}"
    sent.append(v)
    p.produce("oauth", v.encode(), on_delivery=lambda err, msg: acked.append(msg.value().decode()) if err is None else None)
    p.poll(0.05)
    i += 1
p.flush(60)
if sorted(acked) != sorted(sent):
    fail(f"valid tokens: {len(acked)} of {len(sent)} records acknowledged")
c = Consumer(dict(config(token), **{"group.id": "oauth-group", "auto.offset.reset": "earliest"}))
c.subscribe(["oauth"])
got = set()
deadline = time.time() + 60
while time.time() < deadline and not set(sent) <= got:
    m = c.poll(0.5)
    if m is not None and m.error() is None:
        got.add(m.value().decode())
c.close()
if not set(sent) <= got:
    fail(f"valid tokens: read {len(set(sent) & got)} of {len(sent)} back")

REFUSALS = (KafkaError._AUTHENTICATION, KafkaError._ALL_BROKERS_DOWN)
for what, make in [
    ("an expired token", lambda: token(lifetime=-600)),
    ("another key's token", lambda: token(key=OTHER_KEY)),
    ("another audience", lambda: token(aud="elsewhere")),
    ("alg none", lambda: token(alg="none")),
]:
    errors = []
    refused = Producer(dict(config(make), **{"message.timeout.ms": 15000, "error_cb": errors.append}))
    delivered = []
    refused.produce("oauth", b"must-not-arrive", on_delivery=lambda err, msg: delivered.append(err is None))
    # Until the client reports the refusal (not until message.timeout.ms); then the record is purged.
    deadline = time.time() + 15
    while time.time() < deadline and not any(e.code() in REFUSALS for e in errors):
        refused.poll(0.1)
    refused.purge()
    refused.flush(5)
    if any(delivered):
        fail(f"{what}: a record was acknowledged")
    if not any(e.code() in REFUSALS for e in errors):
        fail(f"{what}: no authentication error, only {[str(e) for e in errors]}")

if failures:
    sys.exit(1)
print(f"oauthbearer passed ({len(sent)} records over re-authentications)")
