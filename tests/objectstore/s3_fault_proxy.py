#!/usr/bin/python3
"""An HTTP fault proxy in front of an S3 server, for the object-store tests.

Usage: s3_fault_proxy.py --listen PORT --target HOST:PORT [--port-file FILE]

Forwards every request to the target unchanged (the Host header too, so SigV4 signatures
made for the proxy's address verify at the target) and the answer back, except while a
fault is armed. Faults are armed through the proxy itself, by a request the S3 client
never sends: POST /__fault with a JSON body
  {"mode": "status", "status": 503, "code": "SlowDown", "count": 3, "methods": ["GET"]}
  {"mode": "reset", "count": 2}          close the connection without an answer
  {"mode": "delay", "ms": 3000, "count": 1}   wait, then forward
  {"mode": "corrupt", "count": 1}        forward, flip one byte of the answer's body
  {"mode": "down"}                       answer nothing to anyone (reset) until cleared
  {"mode": "clear"}
count: how many matching requests the fault applies to (-1: until cleared); methods:
which (default every one). GET /__stats answers {"requests": N, "faults": N, "by_method": {...}}.
Standard library only (Debian's python3).
"""

import argparse
import http.client
import http.server
import json
import socket
import struct
import os
import threading
import time

LOCK = threading.Lock()
FAULT = {}
STATS = {"requests": 0, "faults": 0, "by_method": {}}


def take_fault(method):
    """The fault to apply to this request, if any (counted down)."""
    with LOCK:
        STATS["requests"] += 1
        STATS["by_method"][method] = STATS["by_method"].get(method, 0) + 1
        if not FAULT:
            return None
        methods = FAULT.get("methods")
        if methods and method not in methods:
            return None
        fault = dict(FAULT)
        if FAULT.get("count", -1) > 0:
            FAULT["count"] -= 1
            if FAULT["count"] == 0:
                FAULT.clear()
        STATS["faults"] += 1
        return fault


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    target = None

    def log_message(self, *args):
        pass

    def reset(self):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def answer(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def control(self, body):
        global FAULT
        if self.command == "POST" and self.path == "/__fault":
            spec = json.loads(body or b"{}")
            with LOCK:
                FAULT = {} if spec.get("mode") == "clear" else spec
            self.answer(200, b"{}")
        else:
            with LOCK:
                out = json.dumps(STATS).encode()
            self.answer(200, out, [("Content-Type", "application/json")])

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/__"):
            return self.control(body)
        fault = take_fault(self.command)
        mode = fault.get("mode") if fault else None
        if mode in ("reset", "down"):
            return self.reset()
        if mode == "status":
            code = fault.get("code", "InternalError")
            xml = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
                   f"<Message>injected by s3_fault_proxy</Message></Error>").encode()
            return self.answer(int(fault.get("status", 500)), b"" if self.command == "HEAD" else xml,
                               [("Content-Type", "application/xml")])
        if mode == "delay":
            time.sleep(fault.get("ms", 1000) / 1000.0)
        upstream = http.client.HTTPConnection(self.target, timeout=120)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
        upstream.request(self.command, self.path, body=body if length else None, headers=headers)
        response = upstream.getresponse()
        data = response.read()
        if mode == "corrupt" and data:
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0x5A]) + data[middle + 1:]
        self.send_response(response.status)
        head = self.command == "HEAD"
        for name, value in response.getheaders():
            dropped = ("connection", "transfer-encoding", "keep-alive") + (() if head else ("content-length",))
            if name.lower() not in dropped:
                self.send_header(name, value)
        if not head:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not head:
            self.wfile.write(data)
        upstream.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--port-file")
    args = parser.parse_args()
    Handler.target = args.target
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.listen), Handler)
    server.daemon_threads = True
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
