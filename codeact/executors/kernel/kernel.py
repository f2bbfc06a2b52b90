"""codeact's kernel: a long-lived Python interpreter inside the sandbox container.

Stdlib only. Speaks length-prefixed JSON frames over its stdin/stdout (which then point
elsewhere, so nothing the cells print can forge a frame). Runs cells in one namespace, streams
their output, returns the trailing expression's repr, tracebacks of the cell's own frames,
matplotlib figures as PNG, and proxies ``from tools import x`` calls to the host.
"""

import ast
import base64
import contextlib
import os
import select
import signal
import sys
import time
import traceback
import types

WORKDIR = "/workspace"
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
        self.rich = RichCapture(WORKDIR)

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


def on_alarm(_signum, _frame):
    signal.setitimer(signal.ITIMER_REAL, 0.25)
    raise CellTimeout()


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
                    {"op": "file", "data": base64.b64encode(archive(WORKDIR, msg["path"])).decode()}
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
