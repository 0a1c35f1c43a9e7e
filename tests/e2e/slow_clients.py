#!/usr/bin/env python3
"""N slow clients against the daemon on 127.0.0.1:PORT, to show that they cannot starve the
probes. A third of them connect and send nothing, a third drip a request head one byte every
0.5 s, a third send a whole head announcing a body and drip the body; they connect from
127.0.0.2 so that the probes (from 127.0.0.1) are a different client.

Usage: slow_clients.py PORT N REQUEST_TIMEOUT_S DAEMON_PID
1. With all N open, /healthz and /readyz are asked every 0.1 s for 2 s on fresh connections:
   every answer must come, with its status, within 1 s (prints the latencies).
2. After REQUEST_TIMEOUT_S + 2 s the server must have closed every slow connection (the
   per-connection read deadline).
3. With N fresh slow clients open, SIGTERM must end the daemon within 2 s.
Exits 1 with a message on the first broken promise.
"""
import os
import signal
import socket
import sys
import threading
import time

PORT, N, REQUEST_TIMEOUT, PID = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
HEAD = b"GET /api/v1/dags HTTP/1.1\r\nHost: dagadvisor\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
BODY_HEAD = b"POST /-/reload HTTP/1.1\r\nHost: dagadvisor\r\nContent-Length: 1000\r\n\r\n"
failed_sends = set()  # sockets the server already closed (a send failed)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def open_slow_clients():
    clients = []
    for _ in range(N):
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.settimeout(5)
        s.connect(("127.0.0.1", PORT))
        clients.append(s)
    return clients


def send(s, data):
    try:
        s.send(data)
    except OSError:
        failed_sends.add(s)


def drip(clients, stop):
    for s in clients[2::3]:
        send(s, BODY_HEAD)
    position = 0
    while not stop.is_set() and position < len(HEAD):
        for s in clients[1::3]:  # heads
            send(s, HEAD[position:position + 1])
        for s in clients[2::3]:  # bodies
            send(s, b"x")
        position += 1
        stop.wait(0.5)


def probe(path):
    start = time.monotonic()
    s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    try:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n".encode())
        reply = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    finally:
        s.close()
    status = reply.split(b" ", 2)[1].decode() if reply.startswith(b"HTTP/1.1 ") else "none"
    return status, time.monotonic() - start


def closed_by_server(s):
    if s in failed_sends:
        return True
    s.settimeout(0.2)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True  # reset


def main():
    clients = open_slow_clients()
    stop = threading.Event()
    dripper = threading.Thread(target=drip, args=(clients, stop), daemon=True)
    dripper.start()
    time.sleep(0.3)  # the server has accepted them and holds them on its workers

    latencies = []
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        for path, expected in (("/healthz", "200"), ("/readyz", "200")):
            try:
                status, elapsed = probe(path)
            except OSError as e:
                fail(f"{path} with {N} slow clients: {e}")
            if status != expected:
                fail(f"{path} with {N} slow clients answered {status}, expected {expected}")
            if elapsed > 1.0:
                fail(f"{path} with {N} slow clients took {elapsed * 1000:.0f} ms")
            latencies.append(elapsed * 1000)
        time.sleep(0.1)
    latencies.sort()
    print(f"ok: {len(latencies)} probes with {N} slow clients open: "
          f"median {latencies[len(latencies) // 2]:.1f} ms, max {latencies[-1]:.1f} ms")

    time.sleep(max(0.0, REQUEST_TIMEOUT + 2.0 - 2.3))
    stop.set()
    open_flags = [not closed_by_server(s) for s in clients]
    still_open = sum(open_flags)
    if still_open:
        fail(f"{still_open} of {N} slow connections still open {REQUEST_TIMEOUT + 2:.0f} s after "
             f"connecting (request_timeout {REQUEST_TIMEOUT:.0f} s): idle {sum(open_flags[0::3])}, "
             f"dripping heads {sum(open_flags[1::3])}, dripping bodies {sum(open_flags[2::3])}")
    print(f"ok: the server closed all {N} slow connections within request_timeout + 2 s")
    for s in clients:
        s.close()

    clients = open_slow_clients()
    time.sleep(0.3)
    start = time.monotonic()
    os.kill(PID, signal.SIGTERM)
    while time.monotonic() - start < 5:
        try:
            with open(f"/proc/{PID}/stat") as f:
                if f.read().split(") ", 1)[1].startswith("Z"):
                    break  # exited; the shell reaps it
        except (FileNotFoundError, ProcessLookupError):
            break  # reaped between the open and the read: gone as well
        time.sleep(0.01)
    elapsed = time.monotonic() - start
    if elapsed >= 2.0:
        fail(f"SIGTERM with {N} slow clients open: still running after {elapsed * 1000:.0f} ms")
    print(f"ok: SIGTERM with {N} slow clients open: exited after {elapsed * 1000:.0f} ms")
    for s in clients:
        s.close()


main()
