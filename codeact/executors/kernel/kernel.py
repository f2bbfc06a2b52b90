"""codeact's kernel: a long-lived Python interpreter inside the sandbox container.

Stdlib only. Speaks length-prefixed JSON frames over its stdin/stdout (which then point
elsewhere, so nothing the cells print can forge a frame). Runs cells in one namespace, streams
their output, returns the trailing expression's repr, tracebacks of the cell's own frames,
matplotlib figures as PNG, and proxies ``from tools import x`` calls to the host.
"""

import ast
import base64
import codecs
import contextlib
import io
import json
import os
import select
import signal
import struct
import sys
import tarfile
import threading
import time
import traceback
import types

HEADER = struct.Struct(">I")
MAX_FRAME = 16 * 1024 * 1024
WORKDIR = "/workspace"
HELD_SIGNALS = {signal.SIGALRM, signal.SIGINT}
TOP_LEVEL_AWAIT = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
VALUE_NAME = "__codeact_value__"
CO_COROUTINE = 0x80  # inspect.CO_COROUTINE, without importing inspect


class CellTimeout(BaseException):
    """Raised in the cell when its deadline passes."""


class CellInterrupted(CellTimeout):
    """Raised in the cell when the host interrupts it (SIGINT). Not a KeyboardInterrupt, so a
    cell's own ``raise KeyboardInterrupt`` stays an ordinary error."""


class FinalAnswer(BaseException):
    """Raised by final_answer() to stop the cell."""


class ToolError(Exception):
    """A host tool failed; the message says why."""


class FrameTooLarge(ValueError):
    """A message does not fit in one frame (MAX_FRAME bytes of JSON)."""


def frame(msg):
    """One frame (header + JSON body) for msg; FrameTooLarge past MAX_FRAME."""
    body = json.dumps(msg, separators=(",", ":"), default=str).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise FrameTooLarge(f"{len(body)} bytes of JSON, over the {MAX_FRAME}-byte frame limit")
    return HEADER.pack(len(body)) + body


class Channel:
    def __init__(self, wfd, rfile):
        self.wfd = wfd
        self.rfile = rfile
        self.lock = threading.Lock()

    def send(self, msg):
        self.send_frame(frame(msg))

    def send_frame(self, data):
        # os.write may write less than asked (gVisor does on pipes past 64 KiB): loop, with the
        # timeout and interrupt signals held so that no frame is left half written.
        view = memoryview(data)
        old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
        try:
            with self.lock:
                while view:
                    view = view[os.write(self.wfd, view) :]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def recv(self):
        """The next frame. The wait for it may be interrupted (a deadline, SIGINT); reading it
        may not: a timeout that landed between a frame's header and its body would leave the
        rest of the frame to be read as the next header."""
        poller = select.poll()
        poller.register(self.rfile.fileno(), select.POLLIN)
        while not poller.poll():
            pass
        old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
        try:
            header = self._exactly(HEADER.size)
            (n,) = HEADER.unpack(header)
            if n > MAX_FRAME:
                raise SystemExit("oversized frame from host")
            data = self._exactly(n)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        return json.loads(data)

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.rfile.read(n - len(data))
            if not chunk:
                raise SystemExit(0)
            data += chunk
        return data


class Output:
    """Counts and forwards what the cell writes (fd-level, so subprocesses are captured too)."""

    def __init__(self, channel, cap):
        self.channel = channel
        self.cap = cap
        self.size = 0
        self.truncated = False
        self.parts = {"stdout": [], "stderr": []}
        self.lock = threading.Lock()
        self.fds = {}
        self.marks = {"stdout": threading.Event(), "stderr": threading.Event()}
        self.marker = "\x00codeact-drain-" + os.urandom(8).hex() + "\x00"

    def reset(self):
        with self.lock:
            self.size = 0
            self.truncated = False
            self.parts = {"stdout": [], "stderr": []}

    def add(self, name, text):
        with self.lock:
            room = self.cap - self.size
            if room <= 0:
                self.truncated = True
                return
            if len(text) > room:
                text = text[:room]
                self.truncated = True
            self.size += len(text)
            self.parts[name].append(text)
        self.channel.send({"op": "stream", "name": name, "text": text})

    def pump(self, fd, name):
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        held = ""
        marker = self.marker
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            text = held + decoder.decode(data)
            held = ""
            while marker in text:
                before, text = text.split(marker, 1)
                if before:
                    self.add(name, before)
                self.marks[name].set()
            keep = max((i for i in range(1, len(marker)) if text.endswith(marker[:i])), default=0)
            if keep:
                text, held = text[:-keep], text[-keep:]
            if text:
                self.add(name, text)

    def drain(self):
        """Wait until everything written so far went through the pipes (a marker round trip)."""
        sys.stdout.flush()
        sys.stderr.flush()
        for name, fd in self.fds.items():
            self.marks[name].clear()
            os.write(fd, self.marker.encode())
        for name in self.fds:
            self.marks[name].wait(2)


def capture_fds(output):
    for fd, name in ((1, "stdout"), (2, "stderr")):
        r, w = os.pipe()
        os.dup2(w, fd)
        os.close(w)
        output.fds[name] = fd
        start_thread(output.pump, r, name)
    sys.stdout = io.TextIOWrapper(
        os.fdopen(1, "wb", 0), encoding="utf-8", line_buffering=True, write_through=True
    )
    sys.stderr = io.TextIOWrapper(
        os.fdopen(2, "wb", 0), encoding="utf-8", line_buffering=True, write_through=True
    )


class Kernel:
    def __init__(self, channel, output):
        self.channel = channel
        self.output = output
        self.ns = {}
        self.final = None
        self.next_id = 0
        self.counter = 0
        self.sources = {}
        self.interruptible = False
        self.loop = None  # the session's event loop, made by the first async cell
        self.bare_tools = {}
        # figures, tables, written files: _rich.py is sent ahead of this file (kernel/__init__)
        self.rich = RichCapture(WORKDIR)  # noqa: F821

    def reset(self):
        self.abandon_loop()
        self.ns = {
            "__name__": "__main__",
            "__builtins__": __builtins__,
            "final_answer": self.final_answer,
            "__codeact_await_call__": await_call,
            **self.bare_tools,
        }

    def final_answer(self, *args, **kwargs):
        """End the task with a value (plain data): final_answer(value) or
        final_answer(answer=value)."""
        if len(args) + len(kwargs) != 1 or (kwargs and "answer" not in kwargs):
            raise TypeError(
                "final_answer() takes one value: final_answer(value) or final_answer(answer=value)"
            )
        self.final = (to_plain(args[0] if args else kwargs["answer"]),)
        raise FinalAnswer()

    def run_code(self, code):
        """Run a compiled cell part; one with top-level await runs on the session's loop."""
        result = eval(code, self.ns)
        if code.co_flags & CO_COROUTINE:
            import asyncio

            if self.loop is None or self.loop.is_closed():
                self.loop = asyncio.new_event_loop()
            try:
                result = self.loop.run_until_complete(result)
            except BaseException:  # a deadline or interrupt may have landed inside the loop
                self.abandon_loop()
                raise
        return result

    def abandon_loop(self):
        """Cancel the loop's tasks, close their coroutines and the loop."""
        loop, self.loop = self.loop, None
        if loop is None or loop.is_closed():
            return
        import asyncio

        for task in asyncio.all_tasks(loop):
            task.cancel()
            with contextlib.suppress(BaseException):  # the cell's own cleanup failing
                task.get_coro().close()
        if not loop.is_running():
            loop.close()

    def tools_module(self, specs):
        for old in [k for k in sys.modules if k.startswith("tools.")]:
            del sys.modules[old]
        mod = types.ModuleType("tools")
        mod.ToolError = ToolError
        for old in self.bare_tools:
            self.ns.pop(old, None)
        self.bare_tools = {}
        for name, params, doc in specs:
            target, _, attr = name.rpartition(".")
            holder = mod
            if target:  # "crm.lookup": a function of the submodule tools.crm
                holder = getattr(mod, target, None)
                if holder is None:
                    holder = types.ModuleType("tools." + target)
                    setattr(mod, target, holder)
                    sys.modules["tools." + target] = holder
            setattr(holder, attr, self.tool_function(name, params, doc))
            if not target:  # also a bare name, as in the restricted executor
                self.bare_tools[attr] = getattr(holder, attr)
        sys.modules["tools"] = mod
        self.ns.update(self.bare_tools)

    def tool_function(self, name, params, doc):
        kernel = self

        def call(*args, **kwargs):
            if len(args) > len(params):
                raise TypeError(f"{name}() takes {len(params)} positional arguments")
            for pname, value in zip(params, args):  # noqa: B905 - runs on any Python 3
                kwargs[pname] = value
            kernel.next_id += 1
            call_id = kernel.next_id
            message = {
                "op": "tool_call",
                "id": call_id,
                "name": name,
                "args": {k: to_plain(v) for k, v in kwargs.items()},
            }
            try:
                data = frame(message)
            except FrameTooLarge as exc:
                raise ToolError(
                    f"the arguments of {name}() are too large to send to the host ({exc}); "
                    "write big data to a file in /workspace and pass its path"
                ) from None
            kernel.channel.send_frame(data)
            while True:
                reply = kernel.channel.recv()
                if reply.get("op") == "tool_result" and reply.get("id") == call_id:
                    break
            if reply.get("status") == "ok":
                return reply.get("value")
            if reply.get("status") == "timeout":
                raise CellTimeout()
            raise ToolError(str(reply.get("error")))

        call.__name__ = call.__qualname__ = name.rpartition(".")[2]
        call.__doc__ = doc
        call.__codeact_tool__ = True
        return call

    def run(self, code, timeout):
        self.output.reset()
        self.final = None
        result = {"value": None, "error": None, "timed_out": False, "images": []}
        start = time.perf_counter()
        self.counter += 1
        filename = f"<cell-{self.counter}>"
        self.sources[filename] = code
        self.rich.begin()
        signal.setitimer(signal.ITIMER_REAL, max(float(timeout), 0.001))
        self.interruptible = True
        try:
            try:
                tree = AwaitCalls().visit(ast.parse(code, filename, "exec"))
                has_value = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
                if has_value:  # the trailing expression's value, kept as a notebook would
                    last = tree.body[-1]
                    target = ast.Name(VALUE_NAME, ast.Store())
                    tree.body[-1] = ast.copy_location(ast.Assign([target], last.value), last)
                ast.fix_missing_locations(tree)
                # dont_inherit: the kernel's own ``from __future__`` must not reach the cell
                flags = TOP_LEVEL_AWAIT
                self.run_code(compile(tree, filename, "exec", flags=flags, dont_inherit=True))
                if has_value:
                    value = self.ns.pop(VALUE_NAME, None)
                    if value is not None:
                        text = repr(value)
                        result["value"] = (
                            text if len(text) < 20000 else text[:10000] + " ... " + text[-10000:]
                        )
                        self.rich.value(value)
            except FinalAnswer:
                pass
            except CellTimeout:
                result["timed_out"] = True
            except BaseException as exc:  # the cell's own errors, KeyboardInterrupt included
                result["error"] = self.describe(exc)
        except CellTimeout:
            result["timed_out"] = True
        finally:
            self.interruptible = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.ns.pop(VALUE_NAME, None)
        try:  # noqa: SIM105 - a broken figure must not lose the result
            result.update(self.rich.end())
        except Exception:
            pass
        self.output.drain()
        with self.output.lock:
            result["stdout"] = "".join(self.output.parts["stdout"])
            result["stderr"] = "".join(self.output.parts["stderr"])
            result["truncated"] = self.output.truncated
        result["duration_s"] = time.perf_counter() - start
        result["is_final_answer"] = self.final is not None
        result["final_answer"] = self.final[0] if self.final is not None else None
        return result

    def describe(self, exc):
        lines = ["Traceback (most recent call last):"]
        if isinstance(exc, SyntaxError) and (exc.filename or "").startswith("<cell-"):
            lines = [
                f'  File "{exc.filename}", line {exc.lineno}',
                f"    {(exc.text or '').strip()}",
            ]
        last, repeats = None, 0
        for tb_frame, lineno in traceback.walk_tb(exc.__traceback__):
            fn = tb_frame.f_code.co_filename
            if not fn.startswith("<cell-"):
                continue
            key = (fn, lineno, tb_frame.f_code.co_name)
            if key == last:
                repeats += 1
                if repeats >= 3:  # like CPython: a deep recursion is a few lines, not 1000
                    continue
            else:
                self.repeated(lines, repeats)
                last, repeats = key, 0
            lines.append(f'  File "{fn}", line {lineno}, in {key[2]}')
            src = self.sources.get(fn, "").splitlines()
            if 0 < lineno <= len(src):
                lines.append("    " + src[lineno - 1].strip())
        self.repeated(lines, repeats)
        try:
            message = str(exc)
        except BaseException:
            message = "<unprintable>"
        name = type(exc).__name__
        lines.append(f"{name}: {message}" if message else name)
        return {"type": name, "message": message, "traceback": "\n".join(lines)}

    @staticmethod
    def repeated(lines, repeats):
        if repeats >= 3:
            lines.append(f"  [Previous line repeated {repeats - 2} more times]")


class AwaitCalls(ast.NodeTransformer):
    """``await f(x)`` → ``await __codeact_await_call__(f, x)``: host tools (plain functions)
    can be awaited like async tools, as in the restricted executor."""

    def visit_Await(self, node):
        self.generic_visit(node)
        call = node.value
        if isinstance(call, ast.Call):
            call.args.insert(0, call.func)
            call.func = ast.copy_location(ast.Name("__codeact_await_call__", ast.Load()), call)
        return node


class Ready:
    """An awaitable that gives a value at once."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        return self.value
        yield


def await_call(fn, /, *args, **kwargs):
    """What ``await f(x)`` calls: a host tool's result becomes awaitable."""
    result = fn(*args, **kwargs)
    return Ready(result) if getattr(fn, "__codeact_tool__", False) is True else result


def to_plain(value, depth=0):
    if depth > 50:
        raise ValueError("value nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v, depth + 1) for k, v in value.items()}
    for attr in ("tolist", "to_dict", "isoformat", "item"):
        fn = getattr(value, attr, None)
        if callable(fn):
            try:
                return to_plain(fn(), depth + 1)
            except Exception:
                continue
    return repr(value)


def safe_extract(data, target):
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        base = os.path.realpath(target)
        for member in tar.getmembers():
            dest = os.path.realpath(os.path.join(base, member.name))
            if not (dest == base or dest.startswith(base + os.sep)):
                raise ValueError(f"refusing to extract {member.name!r} outside {target}")
            if member.issym() or member.islnk() or member.isdev():
                raise ValueError(f"refusing to extract link or device {member.name!r}")
        tar.extractall(base)


def archive(path):
    full = os.path.realpath(os.path.join(WORKDIR, path))
    if not (full == WORKDIR or full.startswith(WORKDIR + os.sep)) or not os.path.exists(full):
        raise FileNotFoundError(path)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(full, arcname=os.path.basename(full) or ".")
    return buf.getvalue()


def result_frame(result, nonce):
    """The result frame (echoing the cell's nonce); past the frame limit, a slim result that
    says what was dropped."""
    try:
        return frame({"op": "result", **result, "nonce": nonce})
    except FrameTooLarge as exc:
        problem = f"the cell's result was too large to send ({exc})"
    slim = {
        "op": "result",
        "nonce": nonce,
        "stdout": result["stdout"][-100_000:],
        "stderr": result["stderr"][-100_000:],
        "timed_out": result["timed_out"],
        "truncated": True,
        "value": result["value"],
        "duration_s": result["duration_s"],
        "images": [],
        "is_final_answer": False,
        "final_answer": None,
        "error": {
            "type": "FrameTooLarge",
            "message": problem + "; figures and the final answer were dropped",
            "traceback": "FrameTooLarge: " + problem,
        },
    }
    return frame(slim)


def on_alarm(_signum, _frame):
    signal.setitimer(signal.ITIMER_REAL, 0.25)
    raise CellTimeout()


def start_thread(target, *args):
    """A daemon thread that never receives SIGALRM/SIGINT (it inherits them blocked): those
    must reach the main thread only while it may be interrupted, never in the middle of reading
    a frame, where the kernel would otherwise hand them to another thread at once."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        threading.Thread(target=target, args=args, daemon=True).start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def exit_when_host_gone(fd):
    """The host's side of our stdin closed (its attach stream ended: the host process died or
    dropped us): exit at once, even in the middle of a busy cell, so that no container keeps
    running after its owner is gone. ``poll`` with no events wakes only on hang-up or error."""

    def watch():
        poller = select.poll()
        poller.register(fd, 0)
        while True:
            for _fd, events in poller.poll():
                if events & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    os._exit(0)

    start_thread(watch)


def main():
    rfile = os.fdopen(os.dup(0), "rb", 0)
    exit_when_host_gone(rfile.fileno())
    wfd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    channel = Channel(wfd, rfile)
    init = channel.recv()
    output = Output(channel, int(init.get("max_output", 1_000_000)))
    capture_fds(output)
    os.makedirs(WORKDIR, exist_ok=True)
    os.chdir(WORKDIR)
    signal.signal(signal.SIGALRM, on_alarm)
    kernel = Kernel(channel, output)

    def on_interrupt(_signum, _frame):
        if kernel.interruptible:  # between cells the host already has (or gets) the result
            raise CellInterrupted()

    signal.signal(signal.SIGINT, on_interrupt)
    kernel.tools_module(init.get("tools", []))
    kernel.reset()
    channel.send({"op": "ready", "pid": os.getpid(), "python": sys.version.split()[0]})
    while True:
        msg = channel.recv()
        op = msg.get("op")
        nonce = msg.get("nonce")
        try:
            if op == "exec":
                result = kernel.run(str(msg.get("code", "")), msg.get("timeout", 30))
                channel.send_frame(result_frame(result, nonce))
            elif op == "reset":
                kernel.reset()
                channel.send({"op": "reset_done"})
            elif op == "tools":
                kernel.tools_module(msg.get("tools", []))
                channel.send({"op": "tools_done"})
            elif op == "put":
                safe_extract(base64.b64decode(msg["data"]), WORKDIR)
                channel.send({"op": "file_done"})
            elif op == "get":
                channel.send(
                    {"op": "file", "data": base64.b64encode(archive(msg["path"])).decode()}
                )
        except CellTimeout:
            channel.send(
                {
                    "op": "result",
                    "nonce": nonce,
                    "stdout": "",
                    "stderr": "",
                    "timed_out": True,
                    "truncated": False,
                    "images": [],
                }
            )
        except Exception as exc:
            channel.send({"op": "file_error", "message": f"{type(exc).__name__}: {exc}"})


main()
