#!/usr/bin/env python3
"""A deliberately misbehaving Prometheus for fault tests, on 127.0.0.1:<ephemeral>.

Usage: bad_backend.py MODE PORT_FILE REQUEST_LOG
Writes the port it listens on to PORT_FILE, then appends one line per request to REQUEST_LOG
("<path> <authorization header>"). Modes:
  hang       reads the request and never answers
  drip       sends headers announcing 1 MB, then one byte every 0.2 s
  echo-auth  answers 502 with the request's Authorization header in the body (a proxy that
             reflects what it got)
  non-json   answers 200 text/html with a page that is not JSON
  scalar     answers every query with a valid scalar result (no vector)
  empty      answers every query with an empty vector
"""
import socket
import sys
import threading
import time

MODE, PORT_FILE, REQUEST_LOG = sys.argv[1], sys.argv[2], sys.argv[3]
log_lock = threading.Lock()


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    headers = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode()] = value.strip().decode(errors="replace")
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    path = head.split(b"\r\n")[0].split(b" ")[1].decode(errors="replace")
    return path, headers


def answer(conn, status, content_type, body):
    conn.sendall((f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
                  f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body)


def serve(conn):
    try:
        request = read_request(conn)
        if request is None:
            return
        path, headers = request
        with log_lock, open(REQUEST_LOG, "a") as log:
            log.write(f"{path} {headers.get('authorization', '-')}\n")
        if MODE == "hang":
            time.sleep(3600)
        elif MODE == "drip":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000000\r\n\r\n")
            while True:
                conn.sendall(b" ")
                time.sleep(0.2)
        elif MODE == "echo-auth":
            answer(conn, "502 Bad Gateway", "text/plain",
                   f"upstream refused request with Authorization: "
                   f"{headers.get('authorization', '')}".encode())
        elif MODE == "non-json":
            answer(conn, "200 OK", "text/html",
                   b"<html><body>Please log in to the corporate proxy</body></html>")
        elif MODE == "scalar":
            answer(conn, "200 OK", "application/json",
                   b'{"status":"success","data":{"resultType":"scalar","result":[1795824000,"1"]}}')
        elif MODE == "empty":
            answer(conn, "200 OK", "application/json",
                   b'{"status":"success","data":{"resultType":"vector","result":[]}}')
    except OSError:
        pass
    finally:
        conn.close()


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    with open(PORT_FILE + ".tmp", "w") as f:
        f.write(str(listener.getsockname()[1]))
    import os
    os.rename(PORT_FILE + ".tmp", PORT_FILE)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
