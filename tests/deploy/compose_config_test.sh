#!/usr/bin/env bash
# The compose files of deploy/ are valid (`docker-compose config -q`, no daemon needed),
# alone and in the combinations deploy/README.md names, and their addresses agree:
#   docker-compose.yml publishes no port; with docker-compose.override.yml every published
#     port is bound to 127.0.0.1 and used once, each broker advertises EXTERNAL as
#     localhost:<the host port published for container port 9094> and INTERNAL as its
#     service name, the voters name every controller service, brokers mount the shared
#     remote tier and wait for healthy controllers.
#   with docker-compose.host-network.yml: every service is on the host's network, and
#     every listener, voter and metrics address is 127.0.0.1 on a port no other node uses.
#   docker-compose.single.yml: one node with both roles.
#   with docker-compose.secure.yml (and made-up secrets): no listener of any node is
#     PLAINTEXT (the controllers' gRPC port is SSL, both Kafka listeners SASL_SSL, INTERNAL
#     also between brokers with a mechanism it enables), every node reads its own keystore
#     from the secrets mounted read-only, the brokers run the StandardAuthorizer, and the
#     variant still composes with the host-network override.
#   with docker-compose.object-store.yml: a service `object-store` (MinIO), every broker's
#     remote tier an S3 bucket on it (path-style, the store's own credentials) and every
#     broker waiting for it to be healthy; with docker-compose.object-store.host-network.yml
#     after the host-network override, the store on the host's network at 127.0.0.1 on a
#     port no node uses, and the brokers' endpoint that address.
#   compose_config_test.sh [REPO_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
deploy="$root/deploy"
command -v docker-compose >/dev/null || { echo "compose_config_test: FAIL: docker-compose is missing (scripts/install-deps.sh)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() {
  local name=$1; shift
  local args=()
  for f in "$@"; do args+=(-f "$deploy/$f"); done
  # No variables from the caller's environment: the files' defaults are what is checked.
  if ! env -u STRATA_IMAGE -u STRATA_CLUSTER_ID -u STRATA_HOST_PORT_PREFIX -u STRATA_OBJECT_STORE_IMAGE \
      -u STRATA_OBJECT_STORE_ACCESS_KEY -u STRATA_OBJECT_STORE_SECRET_KEY "${secrets_env[@]}" \
      docker-compose --project-directory "$deploy" "${args[@]}" config >"$work/$name.yml" 2>"$work/$name.err"; then
    echo "compose_config_test: FAIL: docker-compose config of $*:" >&2
    cat "$work/$name.err" >&2
    exit 1
  fi
  docker-compose --project-directory "$deploy" "${args[@]}" config -q
  echo "compose_config_test: $* valid"
}
secrets_env=(-u STRATA_SECRETS_DIR)
check base docker-compose.yml
check bridge docker-compose.yml docker-compose.override.yml
check host docker-compose.yml docker-compose.host-network.yml
check single docker-compose.single.yml
check store docker-compose.yml docker-compose.override.yml docker-compose.object-store.yml
check store-host docker-compose.yml docker-compose.object-store.yml docker-compose.host-network.yml \
  docker-compose.object-store.host-network.yml
# The secure variant needs deploy/make-secrets.sh's variables; made-up ones here.
secrets_env=(STRATA_SECRETS_DIR=/srv/secrets STRATA_ADMIN_PASSWORD=a1 STRATA_BROKER_PASSWORD=b2)
export "${secrets_env[@]}"
check secure docker-compose.yml docker-compose.override.yml docker-compose.secure.yml
check secure-host docker-compose.yml docker-compose.host-network.yml docker-compose.secure.yml

/usr/bin/python3 - "$work" <<'PY'
import sys, yaml

work = sys.argv[1]
errors = []


def load(name):
    with open(f"{work}/{name}.yml") as f:
        return yaml.safe_load(f)["services"]


def listeners(text):
    out = {}
    for item in filter(None, (text or "").split(",")):
        name, address = item.split("://")
        host, port = address.rsplit(":", 1)
        out[name] = (host, int(port))
    return out


def voters(env):
    out = {}
    for item in env["STRATA_CONTROLLER_QUORUM_VOTERS"].split(","):
        node, address = item.split("@")
        host, port = address.rsplit(":", 1)
        out[int(node)] = (host, int(port))
    return out


def published(service):
    out = {}
    for p in service.get("ports", []):
        if isinstance(p, dict):
            ip, host_port, container_port = p.get("host_ip", ""), int(p["published"]), int(p["target"])
        else:
            parts = str(p).split("/")[0].split(":")
            ip, host_port, container_port = (parts[0], int(parts[1]), int(parts[2])) if len(parts) == 3 else ("", int(parts[0]), int(parts[1]))
        out[container_port] = (ip, host_port)
    return out


# docker-compose.yml publishes nothing itself (the host-network override could not take
# it back); with docker-compose.override.yml on its bridge network:
for name, s in load("base").items():
    if s.get("ports"):
        errors.append(f"docker-compose.yml: {name} publishes ports (compose v1 refuses them on the host network)")
bridge = load("bridge")
seen_ports = {}
controllers = sorted(n for n, s in bridge.items() if s["environment"]["STRATA_PROCESS_ROLES"] == "controller")
brokers = sorted(n for n, s in bridge.items() if s["environment"]["STRATA_PROCESS_ROLES"] == "broker")
if len(controllers) != 3 or len(brokers) != 3:
    errors.append(f"docker-compose.yml: {len(controllers)} controllers and {len(brokers)} brokers, not 3 and 3")
for name, s in bridge.items():
    env = s["environment"]
    ports = published(s)
    for container_port, (ip, host_port) in ports.items():
        if ip != "127.0.0.1":
            errors.append(f"{name}: port {host_port} is published on '{ip}', not 127.0.0.1")
        if host_port in seen_ports:
            errors.append(f"{name}: host port {host_port} is also published by {seen_ports[host_port]}")
        seen_ports[host_port] = name
    if 9100 not in ports:
        errors.append(f"{name}: metrics (9100) not published")
    v = voters(env)
    if sorted(v) != [1, 2, 3] or any(v[i][0] != f"controller-{i}" for i in v):
        errors.append(f"{name}: voters {env['STRATA_CONTROLLER_QUORUM_VOTERS']} do not name controller-1..3")
    if name in brokers:
        adv = listeners(env.get("STRATA_ADVERTISED_LISTENERS"))
        if adv.get("INTERNAL") != (name, 9092):
            errors.append(f"{name}: INTERNAL is advertised as {adv.get('INTERNAL')}, not {name}:9092")
        if 9094 not in ports or adv.get("EXTERNAL") != ("localhost", ports[9094][1]):
            errors.append(f"{name}: EXTERNAL is advertised as {adv.get('EXTERNAL')}, not localhost:<published port of 9094>")
        if env.get("STRATA_INTER_BROKER_LISTENER_NAME") != "INTERNAL":
            errors.append(f"{name}: replication does not use INTERNAL")
        if not any(str(m).startswith("remote-tier:/var/lib/strata-remote") or
                   (isinstance(m, dict) and m.get("source") == "remote-tier") for m in s.get("volumes", [])):
            errors.append(f"{name}: does not mount the shared remote-tier volume")
        deps = s.get("depends_on", {})
        if sorted(deps) != controllers or any(d.get("condition") != "service_healthy" for d in deps.values()):
            errors.append(f"{name}: does not wait for every controller to be healthy")

# with the host-network override
host = load("host")
addresses = {}
for name, s in host.items():
    env = s["environment"]
    node = int(env["STRATA_NODE_ID"])
    if s.get("network_mode") != "host":
        errors.append(f"{name}: network_mode is {s.get('network_mode')}, not host")
    own = dict(listeners(env.get("STRATA_LISTENERS")))
    metrics_host, metrics_port = env["STRATA_METRICS_LISTENER"].rsplit(":", 1)
    own["metrics"] = (metrics_host, int(metrics_port))
    v = voters(env)
    if node in v:
        own["controller"] = v[node]
    if listeners(env.get("STRATA_ADVERTISED_LISTENERS")) != listeners(env.get("STRATA_LISTENERS")):
        errors.append(f"{name}: advertises other addresses than it listens on")
    for what, (h, p) in own.items():
        if h != "127.0.0.1":
            errors.append(f"{name}: {what} on {h}, not 127.0.0.1")
        if p in addresses:
            errors.append(f"{name}: {what} port {p} is also {addresses[p]}")
        addresses[p] = f"{name} {what}"
if len(addresses) != 3 * 2 + 3 * 3:
    errors.append(f"host network: {len(addresses)} addresses, not 15")

for variant in ("secure", "secure-host"):
    for name, s in load(variant).items():
        env = s["environment"]
        protocols = dict(item.split(":") for item in env["STRATA_LISTENER_SECURITY_PROTOCOL_MAP"].split(","))
        if protocols.get("CONTROLLER") != "SSL":
            errors.append(f"{variant}: {name}: the controllers' port is {protocols.get('CONTROLLER')}, not SSL")
        for listener in listeners(env.get("STRATA_LISTENERS")):
            if protocols.get(listener) != "SASL_SSL":
                errors.append(f"{variant}: {name}: listener {listener} is {protocols.get(listener)}, not SASL_SSL")
        if env.get("STRATA_SSL_KEYSTORE_LOCATION") != f"/etc/strata/secrets/{name}.pem":
            errors.append(f"{variant}: {name}: keystore {env.get('STRATA_SSL_KEYSTORE_LOCATION')}, not its own")
        if not any(str(m).endswith(":/etc/strata/secrets:ro") or
                   (isinstance(m, dict) and m.get("target") == "/etc/strata/secrets" and m.get("read_only"))
                   for m in s.get("volumes", [])):
            errors.append(f"{variant}: {name}: the secrets are not mounted read-only at /etc/strata/secrets")
        if env["STRATA_PROCESS_ROLES"] == "broker":
            if env.get("STRATA_AUTHORIZER_CLASS_NAME") != "org.apache.kafka.metadata.authorizer.StandardAuthorizer":
                errors.append(f"{variant}: {name}: no StandardAuthorizer")
            mechanism = env.get("STRATA_SASL_MECHANISM_INTER_BROKER_PROTOCOL")
            if mechanism not in env.get("STRATA_SASL_ENABLED_MECHANISMS", "").split(","):
                errors.append(f"{variant}: {name}: the inter-broker mechanism {mechanism} is not enabled")
            if 'username="broker" password="b2"' not in env.get("STRATA_LISTENER_NAME_INTERNAL_PLAIN_SASL_JAAS_CONFIG", ""):
                errors.append(f"{variant}: {name}: INTERNAL's JAAS entry has no login for the broker")

def object_store(variant):
    services = load(variant)
    store = services.get("object-store")
    if store is None:
        errors.append(f"{variant}: no object-store service")
        return None, {}
    env = store["environment"]
    nodes = {n: s for n, s in services.items() if n != "object-store"}
    for name, s in nodes.items():
        if s["environment"]["STRATA_PROCESS_ROLES"] != "broker":
            continue
        b = s["environment"]
        if b.get("STRATA_RSM_CONFIG_STORAGE_BACKEND_CLASS") != "s3":
            errors.append(f"{variant}: {name}: the remote tier is not the s3 backend")
        if b.get("STRATA_RSM_CONFIG_STORAGE_S3_BUCKET_NAME") != env.get("STRATA_OBJECT_STORE_BUCKET"):
            errors.append(f"{variant}: {name}: bucket {b.get('STRATA_RSM_CONFIG_STORAGE_S3_BUCKET_NAME')} is not the store's")
        if (b.get("STRATA_RSM_CONFIG_STORAGE_AWS_ACCESS_KEY_ID"), b.get("STRATA_RSM_CONFIG_STORAGE_AWS_SECRET_ACCESS_KEY")) != \
                (env.get("MINIO_ROOT_USER"), env.get("MINIO_ROOT_PASSWORD")):
            errors.append(f"{variant}: {name}: credentials are not the store's")
        if b.get("STRATA_RSM_CONFIG_STORAGE_S3_PATH_STYLE_ACCESS_ENABLED") != "true":
            errors.append(f"{variant}: {name}: not path-style (MinIO's buckets are no host names)")
        if s.get("depends_on", {}).get("object-store", {}).get("condition") != "service_healthy":
            errors.append(f"{variant}: {name}: does not wait for the object store to be healthy")
    return store, nodes


store, nodes = object_store("store")
if store is not None:
    for name, s in nodes.items():
        endpoint = s["environment"].get("STRATA_RSM_CONFIG_STORAGE_S3_ENDPOINT_URL")
        if s["environment"]["STRATA_PROCESS_ROLES"] == "broker" and endpoint != "http://object-store:9000":
            errors.append(f"store: {name}: endpoint {endpoint}, not http://object-store:9000")
store, nodes = object_store("store-host")
if store is not None:
    address = store["environment"].get("STRATA_OBJECT_STORE_ADDRESS", "")
    host_, _, port = address.rpartition(":")
    if store.get("network_mode") != "host" or host_ != "127.0.0.1":
        errors.append(f"store-host: the object store is on {store.get('network_mode')} at '{address}', not the host's 127.0.0.1")
    elif int(port) in addresses:
        errors.append(f"store-host: the object store's port {port} is also {addresses[int(port)]}")
    for name, s in nodes.items():
        endpoint = s["environment"].get("STRATA_RSM_CONFIG_STORAGE_S3_ENDPOINT_URL")
        if s["environment"]["STRATA_PROCESS_ROLES"] == "broker" and endpoint != f"http://{address}":
            errors.append(f"store-host: {name}: endpoint {endpoint}, not http://{address}")

single = load("single")
if len(single) != 1 or next(iter(single.values()))["environment"]["STRATA_PROCESS_ROLES"] != "broker,controller":
    errors.append("docker-compose.single.yml: not one node with the roles broker,controller")

for e in errors:
    print(f"compose_config_test: FAIL: {e}", file=sys.stderr)
if errors:
    sys.exit(1)
print(f"compose_config_test: addresses agree ({len(seen_ports)} published ports, {len(addresses)} host-network addresses)")
PY
