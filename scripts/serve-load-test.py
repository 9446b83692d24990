#!/usr/bin/env python3
"""A bounded load test of `quanta serve` (make test-serve-load).

usage: serve-load-test.py QUANTA MODEL [--requests N] [--concurrency C] [--slots S]

Starts `quanta serve -np S` on a free port, warms it up with one round of every request kind,
then sends N requests, C at a time: chat and completions, whole and streamed, some streams
cancelled after a few events, some disconnected right after sending (while queued, when the
slots are busy). Every request must end with a complete valid answer (a whole JSON answer with
its text; a stream whose every event parses and that ends with `data: [DONE]`) or a clean error
(an OpenAI error object); a request that takes over 120 s is a hang. The server's resident set
(VmRSS) after the run must be within 5 % of the one after warm-up, and SIGTERM must exit 0.
Prints the figures; exits 1 on any failure. Only the standard library.
"""
import argparse
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

PROMPTS = ["Name a colour.", "What is the capital of France?", "Write a haiku about the sea.", "List three fruits.",
           "Say hello in French.", "What is two plus two?"]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def body_for(kind, rng):
    prompt = rng.choice(PROMPTS)
    stream = kind in ("chat-stream", "completion-stream", "cancel-midway", "disconnect")
    if kind.startswith("completion"):
        return "/v1/completions", {"prompt": prompt, "max_tokens": 24, "temperature": 0.7, "seed": rng.randrange(1000),
                                   "stream": stream}
    return "/v1/chat/completions", {"messages": [{"role": "user", "content": prompt}], "max_tokens": 24,
                                    "temperature": 0.7, "seed": rng.randrange(1000), "stream": stream}


def check_whole(status, data):
    obj = json.loads(data)
    if status != 200:
        return "error-" + str(status) if "error" in obj and "message" in obj["error"] else "BAD-error-object"
    choice = obj["choices"][0]
    text = choice.get("text") if "text" in choice else choice["message"]["content"]
    return "ok" if isinstance(text, str) and choice["finish_reason"] in ("stop", "length") else "BAD-answer"


def check_stream(status, data):
    if status != 200:
        return check_whole(status, data)
    text = data.decode()
    if not text.endswith("data: [DONE]\n\n"):
        return "BAD-unterminated-stream"
    for line in text.split("\n"):
        if line.startswith("data: {"):
            obj = json.loads(line[6:])
            if "error" in obj:
                return "error-in-stream"
    return "ok"


def one(port, kind, rng):
    path, payload = body_for(kind, rng)
    body = json.dumps(payload).encode()
    if kind == "disconnect":
        # Send and hang up at once: queued when the slots are busy, else cancelled at its first token.
        s = socket.create_connection(("127.0.0.1", port), timeout=120)
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                  + body)
        s.close()
        return "disconnected"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("POST", path, body, {"Content-Type": "application/json"})
    response = conn.getresponse()
    if kind == "cancel-midway":
        if response.status != 200:
            return check_whole(response.status, response.read())
        events = 0
        while events < 3:
            line = response.fp.readline()
            if not line:
                break
            if line.startswith(b"data: {"):
                events += 1
        conn.close()
        return "cancelled"
    data = response.read()
    conn.close()
    return check_stream(response.status, data) if payload["stream"] else check_whole(response.status, data)


def run_round(port, kinds, concurrency, seed):
    outcomes, lock, queue = Counter(), threading.Lock(), list(enumerate(kinds))

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                i, kind = queue.pop()
            rng = random.Random(seed * 100003 + i)
            start = time.monotonic()
            try:
                outcome = one(port, kind, rng)
            except Exception as e:  # a timeout, a reset where none is expected, an unparsable answer
                outcome = f"BAD-{kind}-{type(e).__name__}"
            if time.monotonic() - start > 120:
                outcome = f"BAD-{kind}-hang"
            with lock:
                outcomes[outcome] += 1

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def metric(port, name):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    return sum(float(m) for m in re.findall(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("quanta")
    p.add_argument("model")
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--slots", type=int, default=2)
    a = p.parse_args()
    server = subprocess.Popen([a.quanta, "serve", "-m", a.model, "--port", "0", "-np", str(a.slots), "--queue", "16", "-t", "2"],
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    failed = False
    try:
        first = server.stderr.readline()
        port = int(re.search(r"127\.0\.0\.1:(\d+)", first).group(1))
        kinds_cycle = ["chat", "chat-stream", "completion", "completion-stream", "cancel-midway", "chat", "chat-stream", "disconnect"]
        warm = run_round(port, kinds_cycle * 2, a.concurrency, seed=1)
        time.sleep(1)
        rss_warm = rss_kib(server.pid)
        kinds = [kinds_cycle[i % len(kinds_cycle)] for i in range(a.requests)]
        random.Random(7).shuffle(kinds)
        start = time.monotonic()
        outcomes = run_round(port, kinds, a.concurrency, seed=2)
        seconds = time.monotonic() - start
        # Let the cancelled and disconnected requests finish being cut before measuring.
        for _ in range(100):
            if metric(port, "quanta_queue_depth") == 0 and metric(port, "quanta_slots_busy") == 0:
                break
            time.sleep(0.1)
        time.sleep(1)
        rss_after = rss_kib(server.pid)
        cancelled = metric(port, "quanta_requests_cancelled_total")
        growth = (rss_after - rss_warm) / rss_warm * 100
        print(f"warm-up: {sum(warm.values())} requests {dict(warm)}")
        print(f"run: {a.requests} requests, {a.concurrency} at a time, {a.slots} slots, {seconds:.1f} s")
        print(f"outcomes: {dict(sorted(outcomes.items()))}")
        print(f"server-side cancelled (warm-up and run): {int(cancelled)}")
        print(f"RSS after warm-up {rss_warm} KiB, after the run {rss_after} KiB ({growth:+.2f} %)")
        bad = {k: v for k, v in outcomes.items() if k.startswith("BAD")}
        if bad or any(k.startswith("BAD") for k in warm):
            print(f"FAIL: requests without a valid answer or a clean error: {bad}", file=sys.stderr)
            failed = True
        if sum(outcomes.values()) != a.requests:
            print("FAIL: not every request finished", file=sys.stderr)
            failed = True
        if abs(growth) > 5:
            print(f"FAIL: RSS changed by {growth:+.2f} % (limit 5 %)", file=sys.stderr)
            failed = True
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            code = "hung"
        print(f"SIGTERM: exit {code}")
        if code != 0:
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
