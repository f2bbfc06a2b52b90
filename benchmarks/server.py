"""AG-UI server: events/s and time to first event at 50 and 200 concurrent runs, server CPU per
event, and the peak RSS of a 4 MB streamed answer.

Run by hand: ``.venv/bin/python benchmarks/server.py``. The server runs in its own process
(uvicorn on 127.0.0.1, a ScriptedLLM agent, MemoryStore); a small asyncio HTTP client drives
it, so the client's cost stays out of the server's numbers. ``--code DIR`` serves the codeact
package found in DIR instead (e.g. an older checkout: ``git archive <rev> | tar -x -C DIR``), to
compare before and after on the same machine; with ``--anchor``, ``--before DIR`` serves DIR's
codeact as a third server in the same interleaved rounds (before, after and the bare anchor).

``--db postgresql://...`` (or ``--db temp-postgres``: a throwaway server from the Debian
binaries) measures replicas instead: runs/s and p99 time to first event of short scripted runs
with 1 and 3 replicas sharing the database, the same against MemoryStore, and the database's
cost per run start (see ``benchmarks/replicas.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

CHUNKS = 100  # text pieces per answer in the concurrency runs
ROOT = Path(__file__).resolve().parents[1]


# -- the server process -------------------------------------------------------------------------
def serve(port: int, big_mb: int, delay: float, db: str = "", chunks: int = CHUNKS) -> None:
    from codeact import FunctionAgent
    from codeact.llms import Reply, ScriptedLLM
    from codeact.server import MemoryStore, create_app

    if big_mb:
        chunk = "x" * 1023 + "\n"
        replies: list[object] = [Reply(chunks=[chunk] * (1024 * big_mb))]
    else:
        words = [f"w{i} " for i in range(chunks)]
        replies = [Reply(chunks=words, chunk_delay=delay)] * 20000
    if db:
        from codeact.server import open_store

        store = open_store(db, max_size=20)
    else:
        store = MemoryStore()
    agent = FunctionAgent(llm=ScriptedLLM(replies))  # type: ignore[arg-type]
    # (no admission limit: the benchmark measures streams, and older versions capped at 64)
    app = create_app(agent, store=store, max_sessions=0)
    try:
        from codeact.server._uvicorn import make_server

        server = make_server(app, host="127.0.0.1", port=port)
    except ImportError:  # an older codeact
        import uvicorn

        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        )
    _profile_on_request()
    server.run()


def _profile_on_request() -> None:
    """With ``CODEACT_BENCH_PROFILE=FILE``, SIGUSR1 writes cProfile stats of the server there."""
    profile = os.environ.get("CODEACT_BENCH_PROFILE")
    if profile:
        import cProfile
        import signal

        prof = cProfile.Profile()
        signal.signal(signal.SIGUSR1, lambda *_: (prof.disable(), prof.dump_stats(profile)))
        prof.enable()


def anchor_app(delay: float, chunks: int = CHUNKS) -> Any:
    """The anchor: a bare Starlette SSE endpoint sending the frames a codeact run sends for the
    same answer, paced the same — what the transport alone costs."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    async def run(request: Request) -> StreamingResponse:
        data = json.loads(await request.body())
        thread, rid = json.dumps(data["threadId"]), json.dumps(data["runId"])
        mid = '"msg-0123456789ab"'
        head = [
            f'{{"type":"RUN_STARTED","threadId":{thread},"runId":{rid}}}',
            '{"type":"CUSTOM","name":"codeact.agent","value":{"agentName":"Agent","tools":[]}}',
            f'{{"type":"TEXT_MESSAGE_START","messageId":{mid},"role":"assistant"}}',
        ]
        tail = [
            f'{{"type":"TEXT_MESSAGE_END","messageId":{mid}}}',
            f'{{"type":"RUN_FINISHED","threadId":{thread},"runId":{rid}}}',
        ]

        async def frames() -> AsyncIterator[bytes]:
            n = 0
            for d in head:
                yield f"id: {n}\ndata: {d}\n\n".encode()
                n += 1
            for i in range(chunks):
                if delay:
                    await asyncio.sleep(delay)
                d = f'{{"type":"TEXT_MESSAGE_CONTENT","messageId":{mid},"delta":"w{i} "}}'
                yield f"id: {n}\ndata: {d}\n\n".encode()
                n += 1
            for d in tail:
                yield f"id: {n}\ndata: {d}\n\n".encode()
                n += 1

        return StreamingResponse(frames(), media_type="text/event-stream")

    return Starlette(routes=[Route("/", run, methods=["POST"])])


def serve_anchor(port: int, delay: float, chunks: int = CHUNKS, gc_policy: bool = False) -> None:
    """Serve ``anchor_app`` on the same uvicorn stack as codeact (``make_server``); with
    ``gc_policy``, under the garbage-collector policy codeact's app applies while it serves."""
    from codeact.server._gcpolicy import DEFAULT_THRESHOLD, serving_gc
    from codeact.server._uvicorn import make_server

    server = make_server(anchor_app(delay, chunks), host="127.0.0.1", port=port)
    _profile_on_request()
    with serving_gc(DEFAULT_THRESHOLD if gc_policy else 0):
        server.run()


# -- the client ---------------------------------------------------------------------------------
def request(thread: str, port: int) -> bytes:
    body = json.dumps(
        {
            "threadId": thread,
            "runId": f"r-{thread}",
            "messages": [{"role": "user", "content": "hi"}],
        }
    ).encode()
    head = (
        f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: text/event-stream\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


async def one_run(port: int, thread: str) -> tuple[float, int, bool]:
    """(seconds to the first event, events, finished)."""
    t0 = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request(thread, port))
    await writer.drain()
    first = 0.0
    raw = bytearray()
    while True:
        chunk = await reader.read(65536)
        if not chunk:
            break
        if not first and b"data: " in chunk:
            first = time.perf_counter() - t0
        raw += chunk
    writer.close()
    return first, raw.count(b"data: "), b"RUN_FINISHED" in raw


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def concurrent(port: int, pid: int, n: int, tag: str) -> dict[str, float]:
    cpu0 = cpu_seconds(pid)
    t0 = time.perf_counter()
    results = await asyncio.gather(*(one_run(port, f"{tag}-{i}") for i in range(n)))
    wall = time.perf_counter() - t0
    cpu = cpu_seconds(pid) - cpu0
    events = sum(r[1] for r in results)
    firsts = sorted(r[0] for r in results)
    return {
        "runs": n,
        "events": events,
        "wall_s": wall,
        "events_per_s": events / wall,
        "ttfe_p50_ms": statistics.median(firsts) * 1000,
        "ttfe_p99_ms": firsts[min(len(firsts) - 1, int(len(firsts) * 0.99))] * 1000,
        "server_cpu_ms_per_event": cpu / events * 1000 if events else float("nan"),
        "failures": sum(1 for r in results if not r[2]),
    }


def start_server(
    code: Path,
    big_mb: int = 0,
    delay: float = 0.0,
    db: str = "",
    chunks: int = CHUNKS,
    anchor: bool = False,
    anchor_gc: bool = False,
) -> tuple[subprocess.Popen[bytes], int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    env = dict(os.environ, PYTHONPATH=str(code))
    cmd = [sys.executable, __file__, "--serve", str(port), "--big-mb", str(big_mb)]
    cmd += ["--chunk-delay", str(delay), "--db", db, "--chunks", str(chunks)]
    cmd += ["--serve-anchor"] if anchor else []
    cmd += ["--serve-anchor-gc"] if anchor_gc else []
    proc = subprocess.Popen(cmd, env=env, cwd=code)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.1)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--code", default=str(ROOT), help="where the codeact package to serve lives")
    p.add_argument("--runs", default="50,200", help="concurrency levels")
    p.add_argument("--big-mb", type=int, default=4, help="size of the streamed answer (0: skip)")
    p.add_argument(
        "--chunk-delay",
        type=float,
        default=0.01,
        help="seconds between the LLM's chunks (0: every answer is ready at once)",
    )
    p.add_argument("--db", default="", help="postgresql://... or temp-postgres: replicas")
    p.add_argument("--replicas", default="1,3", help="replica counts (with --db)")
    p.add_argument("--chunks", type=int, default=CHUNKS, help=argparse.SUPPRESS)
    p.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--serve-anchor", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--serve-anchor-gc", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--anchor-gc",
        action="store_true",
        help="with --anchor: also a second anchor under the garbage-collector policy codeact's "
        "app applies while serving (gc_threshold): the ratio with the same collector on both",
    )
    p.add_argument(
        "--anchor",
        action="store_true",
        help="compare with a bare Starlette SSE endpoint on the same stack, interleaved: "
        "paced CPU/event and events/s at --runs, and unpaced first-event p99",
    )
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (with --anchor)")
    p.add_argument(
        "--before",
        default="",
        help="with --anchor: also serve the codeact package found in this directory (e.g. "
        "`git archive <rev> | tar -x -C DIR`), interleaved with the others: before and after "
        "side by side",
    )
    args = p.parse_args()
    if args.serve is not None and args.serve_anchor:
        serve_anchor(args.serve, args.chunk_delay, args.chunks, args.serve_anchor_gc)
        return
    if args.serve is not None:
        serve(args.serve, args.big_mb, args.chunk_delay, args.db, args.chunks)
        return
    if args.anchor:
        compare_with_anchor(args)
        return
    if args.db:
        from replicas import bench_replicas  # (benchmarks/replicas.py)

        bench_replicas(args)
        return
    code = Path(args.code).resolve()
    print(f"serving codeact from {code}; {CHUNKS} chunks per answer, {args.chunk_delay} s apart")
    proc, port = start_server(code, 0, args.chunk_delay)
    try:
        asyncio.run(one_run(port, "warmup"))
        for n in (int(x) for x in args.runs.split(",")):
            r = asyncio.run(concurrent(port, proc.pid, n, f"c{n}"))
            print(
                f"{n:4d} concurrent runs: {r['events']:.0f} events in {r['wall_s']:.2f} s = "
                f"{r['events_per_s']:,.0f} events/s; first event p50 {r['ttfe_p50_ms']:.0f} ms, "
                f"p99 {r['ttfe_p99_ms']:.0f} ms; server CPU {r['server_cpu_ms_per_event']:.3f} "
                f"ms/event; failures {r['failures']:.0f}"
            )
    finally:
        if os.environ.get("CODEACT_BENCH_PROFILE"):
            import signal

            proc.send_signal(signal.SIGUSR1)
            time.sleep(2)
        proc.terminate()
        proc.wait(30)
    if args.big_mb:
        proc, port = start_server(code, args.big_mb)
        try:
            t0 = time.perf_counter()
            _, events, ok = asyncio.run(one_run(port, "big"))
            took = time.perf_counter() - t0
            print(
                f"{args.big_mb} MB answer in 1 KB chunks: {events} events in {took:.2f} s, "
                f"finished {ok}, server peak RSS {peak_rss_mb(proc.pid):.0f} MB"
            )
        finally:
            proc.terminate()
            proc.wait(30)


def compare_with_anchor(args: argparse.Namespace) -> None:
    """codeact against the bare anchor, interleaved round by round (machine load hits both
    alike); medians of the rounds and the ratios, with the load average."""
    code = Path(args.code).resolve()
    levels = [int(x) for x in args.runs.split(",")]
    print(f"codeact from {code} vs a bare Starlette SSE endpoint (same uvicorn stack); "
          f"{CHUNKS} chunks per answer; {args.rounds} interleaved rounds; medians")  # fmt: skip
    if args.before:
        print(f"before: codeact from {Path(args.before).resolve()}")
    for delay in (args.chunk_delay, 0.0):
        servers = {"codeact": start_server(code, 0, delay)}
        if args.before:
            servers["before"] = start_server(Path(args.before).resolve(), 0, delay)
        servers["anchor"] = start_server(code, 0, delay, anchor=True)
        if args.anchor_gc:
            servers["anchor-gc"] = start_server(code, 0, delay, anchor=True, anchor_gc=True)
        try:
            for _proc, port in servers.values():
                asyncio.run(one_run(port, "warmup"))
            for n in levels:
                got: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
                for r in range(args.rounds):
                    for name, (proc, port) in servers.items():
                        got[name].append(asyncio.run(concurrent(port, proc.pid, n, f"{r}-{n}")))
                _report(delay, n, got)
        finally:
            for proc, _ in servers.values():
                proc.terminate()
                proc.wait(30)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


def _report(delay: float, n: int, got: dict[str, list[dict[str, float]]]) -> None:
    def med(name: str, key: str) -> float:
        return statistics.median(r[key] for r in got[name])

    cpu = {name: med(name, "server_cpu_ms_per_event") for name in got}
    rate = {name: med(name, "events_per_s") for name in got}
    p99 = {name: med(name, "ttfe_p99_ms") for name in got}
    fails = sum(r["failures"] for rs in got.values() for r in rs)
    mode = f"paced {delay * 1000:.0f} ms" if delay else "unpaced"
    if "before" in got:
        print(
            f"{'before':>14} {n:4d} runs: CPU/event {cpu['before']:.3f} ms "
            f"({cpu['before'] / cpu['anchor']:.2f}x); events/s {rate['before']:,.0f} "
            f"({rate['before'] / rate['anchor']:.2f}x); first-event p99 {p99['before']:.0f} ms "
            f"({p99['before'] / p99['anchor']:.2f}x)"
        )
    print(
        f"{mode:>14} {n:4d} runs: CPU/event {cpu['codeact']:.3f} vs {cpu['anchor']:.3f} ms "
        f"({cpu['codeact'] / cpu['anchor']:.2f}x); events/s {rate['codeact']:,.0f} vs "
        f"{rate['anchor']:,.0f} ({rate['codeact'] / rate['anchor']:.2f}x); first-event p99 "
        f"{p99['codeact']:.0f} vs {p99['anchor']:.0f} ms ({p99['codeact'] / p99['anchor']:.2f}x)"
        f"; failures {fails:.0f}"
    )
    if "anchor-gc" in got:
        print(
            f"{'vs anchor-gc':>14} {n:4d} runs: CPU/event {cpu['anchor-gc']:.3f} ms "
            f"({cpu['codeact'] / cpu['anchor-gc']:.2f}x); events/s {rate['anchor-gc']:,.0f} "
            f"({rate['codeact'] / rate['anchor-gc']:.2f}x); first-event p99 "
            f"{p99['anchor-gc']:.0f} ms ({p99['codeact'] / p99['anchor-gc']:.2f}x)"
        )


if __name__ == "__main__":
    main()
