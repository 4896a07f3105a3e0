"""Raw Kafka requests on a socket, for process tests that must see a broker's own answer
(a client library would retry it away): connect once a port listens, one request and
its response body (classic or flexible headers), a consumer Fetch's error code."""

import socket
import struct
import time

from replication_harness import TestFailed


def connect_when_listening(address, timeout):
    """A socket to host:port once something listens there (connects retried to a deadline)."""
    host, port = address.rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while True:
        try:
            return socket.create_connection((host, int(port)), timeout=10)
        except ConnectionRefusedError:
            if time.monotonic() >= deadline:
                raise TestFailed(f"nothing listens on {address} after {timeout} s")
            time.sleep(0.05)  # polling a condition with a deadline


def kafka_call(sock, api_key, version, correlation_id, body, flexible=False):
    """One request on sock; the response body after its header. Header v1, or with
    flexible (a flexible version of the API) header v2 and a response header v1, whose
    tagged fields are skipped."""
    client = b"strata-probe"
    tagged_fields = b"\x00" if flexible else b""  # none
    frame = struct.pack(">hhih", api_key, version, correlation_id, len(client)) + client + tagged_fields + body
    sock.sendall(struct.pack(">i", len(frame)) + frame)

    def read(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise TestFailed(f"the broker closed the connection answering API {api_key} v{version}")
            data += chunk
        return data

    size = struct.unpack(">i", read(4))[0]
    data = read(size)
    got = struct.unpack(">i", data[:4])[0]
    if got != correlation_id:
        raise TestFailed(f"correlation id {got} answered request {correlation_id}")
    return data[skip_tagged_fields(data, 4):] if flexible else data[4:]


def uvarint(n):
    """An unsigned varint (the flexible versions' lengths and tagged-field counts)."""
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7F) | 0x80])
        n >>= 7
    return out + bytes([n])


def uvarint_at(data, at):
    """(value, offset after it) of the unsigned varint at data[at:]."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def skip_tagged_fields(data, at):
    """The offset after the tagged fields (count, then tag, size and bytes each) at data[at:]."""
    count, at = uvarint_at(data, at)
    for _ in range(count):
        _, at = uvarint_at(data, at)
        size, at = uvarint_at(data, at)
        at += size
    return at


def string(s):
    return struct.pack(">h", len(s)) + s.encode()


def fetch_error(sock, topic, partition, offset=0):
    """The error code of a consumer's Fetch v4 (no wait) of one partition from offset."""
    body = (struct.pack(">iiiib", -1, 0, 1, 1 << 20, 0) + struct.pack(">i", 1) + string(topic) +
            struct.pack(">i", 1) + struct.pack(">iqi", partition, offset, 1 << 20))
    r = kafka_call(sock, 1, 4, 12, body)
    # throttle, [responses: topic, [partitions: index, error_code, ...]]
    (topics,) = struct.unpack(">i", r[4:8])
    (name_len,) = struct.unpack(">h", r[8:10])
    at = 10 + name_len
    (parts,) = struct.unpack(">i", r[at:at + 4])
    index, error = struct.unpack(">ih", r[at + 4:at + 10])
    if (topics, parts, index) != (1, 1, partition):
        raise TestFailed(f"a Fetch answer for {topics} topics, {parts} partitions, partition {index}")
    return error


def delete_records(sock, topic, partition, offset, timeout_ms=8000):
    """DeleteRecords v1 of one partition below offset: (low watermark, error code). timeout_ms
    stays below the socket's 10 s timeout (connect_when_listening)."""
    body = (struct.pack(">i", 1) + string(topic) + struct.pack(">i", 1) + struct.pack(">iq", partition, offset) +
            struct.pack(">i", timeout_ms))
    r = kafka_call(sock, 21, 1, 13, body)
    # throttle, [topics: name, [partitions: index, low_watermark, error_code]]
    (topics,) = struct.unpack(">i", r[4:8])
    (name_len,) = struct.unpack(">h", r[8:10])
    at = 10 + name_len
    (parts,) = struct.unpack(">i", r[at:at + 4])
    index, low_watermark, error = struct.unpack(">iqh", r[at + 4:at + 18])
    if (topics, parts, index) != (1, 1, partition):
        raise TestFailed(f"a DeleteRecords answer for {topics} topics, {parts} partitions, partition {index}")
    return low_watermark, error
