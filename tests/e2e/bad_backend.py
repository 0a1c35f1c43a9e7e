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
  huge       answers 200 with a 300 MiB body announced by its Content-Length
  huge-stream  the same 300 MiB without a Content-Length (ends when the connection closes), so
             only a cap checked while streaming stops it
  many-series  answers every query with a valid vector of $BAD_BACKEND_SERIES series (default
             600000) labelled like kube-state-metrics pod series, about 100 bytes each
  echo-credentials  a proxy in front of the real Prometheus at $BAD_BACKEND_UPSTREAM that echoes
             the request's credentials in every form (the Authorization value, the bare token or
             base64, the decoded user:password, each raw and URL-encoded) in the channel named
             by the file $BAD_BACKEND_CHANNEL_FILE, read at each request: "warnings" (the
             upstream's 200 answer with them as warnings), "status-401" (a text 401),
             "html-200" (a 200 HTML page), "content-type" (a 200 whose Content-Type carries
             them), "api-error" (a Prometheus error body, 422), "labels" (the upstream's 200
             answer with them appended to every series' namespace label)
  duplicate-series  a proxy in front of the real Prometheus at $BAD_BACKEND_UPSTREAM that sends
             every series of a vector twice with the same label set (the copy's labels in
             reverse order); with BAD_BACKEND_CONFLICT=1 the copy's value is different
"""
import base64
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

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
    return path, headers, rest[:length]


def answer(conn, status, content_type, body):
    conn.sendall((f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
                  f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body)


HUGE_BYTES = 300 << 20
HUGE_CHUNK = b'{"status":"success","data":{"resultType":"vector","result":[' + b" " * ((1 << 20) - 59)


def send_huge(conn, announce_length):
    length = f"Content-Length: {HUGE_BYTES}\r\n" if announce_length else "Connection: close\r\n"
    conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{length}\r\n".encode())
    for _ in range(HUGE_BYTES // len(HUGE_CHUNK)):
        conn.sendall(HUGE_CHUNK)  # invalid JSON past the first chunk: only the cap matters


def many_series_body():
    count = int(os.environ.get("BAD_BACKEND_SERIES", "600000"))
    sample = ('{"metric":{"namespace":"ns-%d","pod":"pod-%d","node":"node-%d","uid":"%d"},'
              '"value":[1795824000,"1"]}')
    series = ",".join(sample % (i % 97, i, i % 5000, i) for i in range(count))
    return ('{"status":"success","data":{"resultType":"vector","result":[' + series + "]}}").encode()


MANY_SERIES = many_series_body() if MODE == "many-series" else b""


def credential_forms(authorization):
    """Every form of the credential a misbehaving proxy might echo, with no keyword before it."""
    scheme, _, credential = authorization.partition(" ")
    forms = [authorization, credential]
    if scheme.lower() == "basic":
        forms.append(base64.b64decode(credential).decode(errors="replace"))
    forms += [urllib.parse.quote(form, safe="") for form in list(forms)]
    return " | ".join("seen " + form for form in forms)


def forward(path, headers, body):
    upstream = os.environ["BAD_BACKEND_UPSTREAM"] + path
    request = urllib.request.Request(upstream, data=body, method="POST" if body else "GET")
    if "content-type" in headers:
        request.add_header("Content-Type", headers["content-type"])
    try:
        with urllib.request.urlopen(request, timeout=30) as upstream_answer:
            return upstream_answer.read()
    except urllib.error.HTTPError as error:  # a Prometheus error body, passed on as it is
        return error.read()


def echo_credentials(conn, path, headers, body):
    with open(os.environ["BAD_BACKEND_CHANNEL_FILE"]) as f:
        channel = f.read().strip()
    echo = credential_forms(headers.get("authorization", ""))
    if channel == "warnings":
        proxied = json.loads(forward(path, headers, body))
        proxied["warnings"] = [echo, "partial data; " + echo]
        answer(conn, "200 OK", "application/json", json.dumps(proxied).encode())
    elif channel == "labels":
        proxied = json.loads(forward(path, headers, body))
        for series in proxied.get("data", {}).get("result", []):
            if isinstance(series, dict) and "namespace" in series.get("metric", {}):
                series["metric"]["namespace"] += " " + echo
        answer(conn, "200 OK", "application/json", json.dumps(proxied).encode())
    elif channel == "status-401":
        answer(conn, "401 Unauthorized", "text/plain", echo.encode())
    elif channel == "html-200":
        answer(conn, "200 OK", "text/html", f"<html><body>{echo}</body></html>".encode())
    elif channel == "content-type":
        answer(conn, "200 OK", "text/plain; " + echo, b"not json")
    elif channel == "api-error":
        error = {"status": "error", "errorType": "bad_data", "error": echo}
        answer(conn, "422 Unprocessable Entity", "application/json", json.dumps(error).encode())


def duplicate_series(conn, path, headers, body):
    proxied = json.loads(forward(path, headers, body))
    data = proxied.get("data", {})
    if data.get("resultType") == "vector":
        copies = []
        for series in data["result"]:
            copy = {"metric": dict(reversed(list(series["metric"].items()))),
                    "value": list(series["value"])}
            if os.environ.get("BAD_BACKEND_CONFLICT") == "1":
                copy["value"][1] = str(float(copy["value"][1]) * 7 + 1)
            copies.append(copy)
        data["result"] += copies
    answer(conn, "200 OK", "application/json", json.dumps(proxied).encode())


def serve(conn):
    try:
        request = read_request(conn)
        if request is None:
            return
        path, headers, body = request
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
        elif MODE in ("huge", "huge-stream"):
            send_huge(conn, MODE == "huge")
        elif MODE == "many-series":
            answer(conn, "200 OK", "application/json", MANY_SERIES)
        elif MODE == "echo-credentials":
            echo_credentials(conn, path, headers, body)
        elif MODE == "duplicate-series":
            duplicate_series(conn, path, headers, body)
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
    os.rename(PORT_FILE + ".tmp", PORT_FILE)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
