#!/usr/bin/env python3
"""Stand-ins for a serving stack and its load generator (tests/integration/serving_submit_test.sh).

  serve  an OpenAI-compatible HTTP server: GET /health and /v1/models, POST /v1/chat/completions
         that streams exactly the asked number of tokens (max_tokens), one per server-sent event,
         after a fixed time to first token and with a fixed time between tokens. A served model
         whose name holds "never-ready" answers 503 to /health and /v1/models forever; one whose
         name holds "load-fails" answers 500 to every completion.
  load   a load generator: sends real streaming requests at a fixed concurrency (warm-up first,
         not counted), measures TTFT, TPOT, ITL and request latency from the bytes it receives,
         and writes the JSON `vllm bench serve --save-result` writes. Exit 3 when a request failed.

Standard library only; the server binds the address the given host name resolves to.
"""
import argparse
import http.client
import json
import math
import os
import queue
import signal
import socket
import statistics
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve(args):
    with open(args.pidfile, "w") as f:
        f.write(str(os.getpid()))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    never_ready = "never-ready" in args.model
    fails = "load-fails" in args.model

    class Handler(BaseHTTPRequestHandler):
        def _json(self, code, obj):
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path not in ("/health", "/v1/models"):
                return self._json(404, {"error": "not found"})
            if never_ready:
                return self._json(503, {"error": "loading"})
            if self.path == "/health":
                return self._json(200, {})
            return self._json(200, {"object": "list", "data": [{"id": args.model, "object": "model"}]})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if self.path != "/v1/chat/completions":
                return self._json(404, {"error": "not found"})
            if body.get("model") != args.model:
                return self._json(404, {"error": "model %r not served" % body.get("model")})
            if fails:
                return self._json(500, {"error": "stand-in told to fail"})
            n = int(body.get("max_completion_tokens") or body.get("max_tokens") or 16)
            prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            time.sleep(args.ttft_ms / 1000)
            for i in range(n):
                if i:
                    time.sleep(args.tpot_ms / 1000)
                delta = {"content": " tok"}
                chunk = {"object": "chat.completion.chunk", "model": args.model,
                         "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.flush()
            usage = {"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n}
            last = {"object": "chat.completion.chunk", "model": args.model, "usage": usage,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}
            self.wfile.write(b"data: " + json.dumps(last).encode() + b"\n\ndata: [DONE]\n\n")
            self.wfile.flush()

        def log_message(self, fmt, *a):
            sys.stderr.write("standin-server: " + (fmt % a) + "\n")

    address = socket.gethostbyname(args.host)
    server = ThreadingHTTPServer((address, args.port), Handler)
    server.daemon_threads = True
    print("standin-server: %s on %s:%d (pid %d)" % (args.model, address, args.port, os.getpid()),
          file=sys.stderr, flush=True)
    server.serve_forever()


def one_request(url, model, isl, osl):
    """One streaming chat request: (ok, ttft_s, [gaps_s], latency_s, tokens, error)."""
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    payload = {"model": model, "stream": True, "max_tokens": osl, "ignore_eos": True,
               "messages": [{"role": "user", "content": " ".join(["hi"] * isl)}]}
    start = time.perf_counter()
    try:
        conn.request("POST", "/v1/chat/completions", json.dumps(payload),
                     {"Content-Type": "application/json"})
        resp = conn.getresponse()
        if resp.status != 200:
            return False, 0, [], 0, 0, "HTTP %d: %s" % (resp.status, resp.read()[:200].decode())
        times = []
        for line in resp:
            line = line.strip()
            if not line.startswith(b"data: ") or line == b"data: [DONE]":
                continue
            event = json.loads(line[6:])
            if any(c.get("delta", {}).get("content") for c in event.get("choices", [])):
                times.append(time.perf_counter())
        end = time.perf_counter()
    except (OSError, http.client.HTTPException, ValueError) as e:
        return False, 0, [], 0, 0, str(e)
    finally:
        conn.close()
    if not times:
        return False, 0, [], 0, 0, "no tokens"
    gaps = [b - a for a, b in zip(times, times[1:])]
    return True, times[0] - start, gaps, end - start, len(times), ""


def run_at_concurrency(args, count):
    """`count` requests through `args.concurrency` workers; the results in request order."""
    todo, results = queue.Queue(), [None] * count
    for i in range(count):
        todo.put(i)

    def worker():
        while True:
            try:
                i = todo.get_nowait()
            except queue.Empty:
                return
            results[i] = one_request(args.url, args.model, args.isl, args.osl)

    threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def percentile(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def stats_ms(prefix, values_s, out):
    ms = [v * 1000 for v in values_s]
    out["mean_%s_ms" % prefix] = statistics.fmean(ms) if ms else 0.0
    out["median_%s_ms" % prefix] = statistics.median(ms) if ms else 0.0
    out["std_%s_ms" % prefix] = statistics.pstdev(ms) if ms else 0.0
    out["p99_%s_ms" % prefix] = percentile(ms, 99)


def load(args):
    if args.warmup:
        run_at_concurrency(args, args.warmup)
    start = time.perf_counter()
    results = run_at_concurrency(args, args.requests)
    duration = time.perf_counter() - start
    ok = [r for r in results if r[0]]
    out_tokens = sum(r[4] for r in ok)
    doc = {
        "date": time.strftime("%Y%m%d-%H%M%S"), "backend": "openai-chat", "label": None,
        "model_id": args.model, "tokenizer_id": args.model, "num_prompts": args.requests,
        "request_rate": "inf", "burstiness": 1.0, "max_concurrency": args.concurrency,
        "duration": duration, "completed": len(ok), "failed": len(results) - len(ok),
        "total_input_tokens": args.isl * len(ok), "total_output_tokens": out_tokens,
        "request_throughput": len(ok) / duration, "request_goodput": None,
        "output_throughput": out_tokens / duration,
        "total_token_throughput": (out_tokens + args.isl * len(ok)) / duration,
    }
    stats_ms("ttft", [r[1] for r in ok], doc)
    stats_ms("tpot", [(r[3] - r[1]) / (r[4] - 1) for r in ok if r[4] > 1], doc)
    stats_ms("itl", [g for r in ok for g in r[2]], doc)
    stats_ms("e2el", [r[3] for r in ok], doc)
    doc.update({"input_lens": [args.isl] * len(ok), "output_lens": [r[4] for r in ok],
                "ttfts": [r[1] for r in ok], "itls": [r[2] for r in ok],
                "errors": [r[5] for r in results if not r[0]],
                "input_len": str(args.isl), "output_len": str(args.osl)})
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f)
    print("standin-load: concurrency %d: %d of %d completed, %.1f output tok/s, mean TTFT %.1f ms"
          % (args.concurrency, len(ok), args.requests, doc["output_throughput"],
             doc["mean_ttft_ms"]), flush=True)
    if len(ok) != len(results):
        print("standin-load: failed: %s" % doc["errors"][0], file=sys.stderr)
        return 3
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--host", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--model", required=True)
    s.add_argument("--pidfile", required=True)
    s.add_argument("--ttft-ms", type=float, default=20)
    s.add_argument("--tpot-ms", type=float, default=2)
    g = sub.add_parser("load")
    g.add_argument("--url", required=True)
    g.add_argument("--model", required=True)
    for name in ("isl", "osl", "concurrency", "requests", "warmup"):
        g.add_argument("--" + name, type=int, required=True)
    g.add_argument("--out", required=True)
    args = p.parse_args()
    return serve(args) if args.cmd == "serve" else load(args)


if __name__ == "__main__":
    sys.exit(main())
