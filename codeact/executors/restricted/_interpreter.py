"""``RestrictedInterpreter``: one session's guarded namespace, builtins, captured output and
cell runner (named for what it is: "session" means the executor's whole session elsewhere).

Used as is by the inline executor (cells run in a worker thread of the host process) and by the
worker process of ``isolation="process"``. Stdlib, RestrictedPython and codeact's own restricted
modules only (no pydantic), so the worker starts fast.
"""

from __future__ import annotations

import builtins
import decimal
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from codeact.executors.restricted import _guards as g
from codeact.executors.restricted import _sizes as sz
from codeact.executors.restricted._asyncrun import (
    SessionLoop,
    asyncio_attrs,
    make_await_call,
    run_cell_code,
)
from codeact.executors.restricted._compile import CELL_SOURCES, CellSyntaxError, compile_cell
from codeact.executors.restricted._deadline import (
    CellTimeout,
    check_timeout,
    leave_cell,
    set_deadline,
)
from codeact.executors.restricted._matchrt import NO_MATCH, match_attr, match_positional
from codeact.executors.restricted._modules import ModuleProxy, ModuleTable, fake_sys
from codeact.executors.restricted._policy import VALUE_NAME
from codeact.executors.restricted._rich import RichCapture
from codeact.executors.restricted._standins import GuardedType
from codeact.executors.restricted._stdsession import SessionWarnings, session_pprint
from codeact.executors.restricted._stdwrap import session_decimal_context
from codeact.executors.restricted._values import MAX_TOOL_PAYLOAD as MAX_TOOL_PAYLOAD
from codeact.executors.restricted._values import ToolError as ToolError
from codeact.executors.restricted._values import (
    bounded_repr,
    check_payload,
    describe_error,
    refuse,
    safe_dir,
    sandbox_type,
    to_plain,
)

ToolBridge = Callable[[str, dict[str, Any]], Any]
OutputSink = Callable[[str, str], None]

_SAFE_BUILTIN_NAMES = (
    "abs all any ascii bin bool callable chr complex dict divmod enumerate filter float format "
    "hash hex int isinstance issubclass iter len map max min next object oct ord pow range repr "
    "reversed round slice str sum zip super property staticmethod classmethod id "
    "NotImplemented Ellipsis"
).split()
_EXCLUDED_EXCEPTIONS = {"BaseExceptionGroup", "ExceptionGroup"}


class _Stream:
    """A captured ``stdout``/``stderr`` for the sandbox (``print`` and ``sys.stdout.write``)."""

    def __init__(self, name: str, session: RestrictedInterpreter) -> None:
        self._name = name
        self._session = session

    def write(self, text: Any) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._session._emit(self._name, text)
        return len(text)

    def flush(self) -> None:
        return None

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False


class RestrictedInterpreter:
    """A persistent restricted namespace plus everything a cell needs to run."""

    def __init__(
        self,
        *,
        tool_names: Sequence[tuple[str, list[str], str]] = (),
        tool_bridge: ToolBridge | None = None,
        allowed_modules: Sequence[str] = (),
        workdir: str | None = None,
        max_output_bytes: int = 1_000_000,
        confine_readers: bool = True,
        allow_pickle: bool = False,
    ) -> None:
        self.workdir = os.path.realpath(workdir) if workdir else None
        self.max_output = max_output_bytes
        self.sink: OutputSink | None = None
        self._out: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self._size = 0
        self.truncated = False
        self.final: tuple[Any] | None = None
        self.stdout = _Stream("stdout", self)
        self.stderr = _Stream("stderr", self)
        self._tool_bridge = tool_bridge
        self._tool_ids: set[int] = set()  # the tool functions, which ``await`` accepts
        self.aio = SessionLoop()
        self.allowed_third_party = list(allowed_modules)
        self._write = g.make_write_guard(frozenset(m.split(".")[0] for m in allowed_modules))
        tool_modules = self._tools_modules(tool_names)
        #: Tools are also bare names in the namespace: models trained on other frameworks call
        #: them without importing (the prompt still teaches ``from tools import name``).
        self._bare_tools = {
            name: getattr(tool_modules["tools"], name)
            for name, _p, _d in tool_names
            if "." not in name
        }
        self.warnings = SessionWarnings(self.stderr, CELL_SOURCES)
        per_session = {
            "sys": fake_sys(self.stdout, self.stderr),
            "warnings": ModuleProxy("warnings", self.warnings.attrs()),
            "pprint": ModuleProxy("pprint", session_pprint(self.stdout)),
            "asyncio": ModuleProxy("asyncio", asyncio_attrs(self.aio)),
        }
        #: The session's decimal context, current while its cells run (cells of several
        #: sessions share worker threads in inline mode).
        self.decimal_context = session_decimal_context()
        self.modules = ModuleTable(
            allowed_modules,
            {**tool_modules, **per_session},
            paths=self.resolve if confine_readers else None,
            allow_pickle=allow_pickle,
        )
        self.builtins = self._builtins()
        self._hooks = self._hook_names()
        self.globals: dict[str, Any] = {}
        self.rich = RichCapture(self.workdir)  # figures, tables, files written (_rich.py)
        self.reset()

    # -- namespace -------------------------------------------------------------------------------
    def reset(self) -> None:
        """A fresh namespace (files in the working directory are kept)."""
        self.aio.abandon()
        self.globals = {
            "__builtins__": self.builtins,
            "__name__": "__main__",
            "final_answer": self._final_answer,
            **self._bare_tools,
            **self._hooks,
        }

    def _builtins(self) -> dict[str, Any]:
        b: dict[str, Any] = {name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES}
        for name in dir(builtins):
            obj = getattr(builtins, name)
            if (
                isinstance(obj, type)
                and issubclass(obj, BaseException)
                and name not in _EXCLUDED_EXCEPTIONS
            ):
                b[name] = obj
        for name in ("list", "tuple", "set", "frozenset", "bytes", "bytearray"):
            b[name] = GuardedType(getattr(builtins, name))
        guarded_types = {
            getattr(builtins, n): b[n]
            for n in ("list", "tuple", "set", "frozenset", "bytes", "bytearray")
        }

        type_ = sandbox_type(guarded_types)
        setattr_, delattr_ = g.make_setattr(self._write)

        b.update(
            {
                "__build_class__": builtins.__build_class__,
                "__import__": self.modules.importer(),
                "print": self._print,
                "sorted": sz.limit_items(sorted, "sorted"),
                "pow": sz.guarded_pow_builtin,
                "type": type_,
                "getattr": g.guarded_getattr,
                "hasattr": g.guarded_hasattr,
                "setattr": setattr_,
                "delattr": delattr_,
                "dir": safe_dir,
                "open": self._open,
                "ToolError": ToolError,
            }
        )
        for name in (
            "eval",
            "exec",
            "compile",
            "globals",
            "locals",
            "vars",
            "input",
            "breakpoint",
            "memoryview",
            "help",
            "exit",
            "quit",
        ):
            b[name] = refuse(name)
        return b

    def _hook_names(self) -> dict[str, Any]:
        """The hooks compiled cells call. They live in the cell's globals, not its builtins: a
        module-level name lookup then finds them at the first try (cells cannot name them)."""
        return {
            "_getattr_": g.guarded_getattr,
            "_write_": self._write,
            "_type_": type,
            "_int_": int,
            "_float_": float,
            "_sandbox_classes_": g.SANDBOX_CLASSES,
            "_pow_": sz.guarded_pow,
            "_mul_": sz.guarded_mul,
            "_lshift_": sz.guarded_lshift,
            "_mod_": sz.guarded_mod,
            "_format_": g.safe_format,
            "_spec_": sz.guarded_spec_value,
            "_refuse_width_": sz.refuse_width,
            "_check_timeout_": check_timeout,
            "_sandbox_class_": g.sandbox_class,
            "_match_attr_": match_attr,
            "_match_pos_": match_positional,
            "_nomatch_": NO_MATCH,
            "_await_call_": make_await_call(self._tool_ids),
        }

    # -- builtins that need the session ------------------------------------------------------------
    def _print(
        self, *args: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False
    ) -> None:
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        if not isinstance(sep, str) or not isinstance(end, str):
            raise TypeError("sep and end must be None or a string")
        text = sep.join(str(a) for a in args) + end
        if file is None or file is self.stdout:
            self._emit("stdout", text)
        elif file is self.stderr:
            self._emit("stderr", text)
        else:
            file.write(text)

    def _emit(self, stream: str, text: str) -> None:
        if self._size >= self.max_output:
            self.truncated = True
            return
        room = self.max_output - self._size
        if len(text) > room:
            text = text[:room]
            self.truncated = True
        self._size += len(text)
        self._out[stream].append(text)
        if self.sink is not None and text:
            self.sink(stream, text)

    def _open(self, file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if self.workdir is None:
            raise g.PolicyError("file access is disabled in this sandbox (no working directory)")
        return builtins.open(self.resolve(file), mode, *args, **kwargs)

    def resolve(self, path: Any) -> str:
        """A path inside the working directory, refusing absolute paths and escapes."""
        if self.workdir is None:
            raise g.PolicyError("file access is disabled in this sandbox")
        if not isinstance(path, str) or not path or "\x00" in path:
            raise g.PolicyError("file paths must be non-empty strings")
        if os.path.isabs(path):
            raise g.PolicyError(
                f"absolute paths are not allowed ({path!r}); use a path relative to the "
                "working directory"
            )
        full = os.path.realpath(os.path.join(self.workdir, path))
        if full != self.workdir and not full.startswith(self.workdir + os.sep):
            raise g.PolicyError(f"path {path!r} leaves the working directory")
        return full

    def _final_answer(self, *args: Any, **kwargs: Any) -> None:
        """End the task with a value (plain data: str, numbers, lists, dicts...), given as
        ``final_answer(value)`` or ``final_answer(answer=value)``."""
        if len(args) + len(kwargs) != 1 or (kwargs and "answer" not in kwargs):
            raise TypeError(
                "final_answer() takes one value: final_answer(value) or final_answer(answer=value)"
            )
        value = args[0] if args else kwargs["answer"]
        self.final = (to_plain(value, lenient=True),)
        raise g.FinalAnswerSignal()

    def _tools_modules(self, tools: Sequence[tuple[str, list[str], str]]) -> dict[str, ModuleProxy]:
        """``tools`` and its submodules (``tools.crm`` for tools named ``crm.<name>``)."""
        attrs: dict[str, Any] = {"ToolError": ToolError}
        subs: dict[str, dict[str, Any]] = {}
        for name, params, doc in tools:
            module, _, attr = name.rpartition(".")
            target = subs.setdefault(module, {}) if module else attrs
            target[attr] = self._tool_function(name, params, doc)
        modules = {f"tools.{m}": ModuleProxy(f"tools.{m}", a) for m, a in subs.items()}
        attrs.update({m: modules[f"tools.{m}"] for m in subs})
        return {"tools": ModuleProxy("tools", attrs), **modules}

    def _tool_function(self, name: str, params: list[str], doc: str) -> Callable[..., Any]:
        bridge = self._tool_bridge

        def call_tool(*args: Any, **kwargs: Any) -> Any:
            if len(args) > len(params):
                raise TypeError(f"{name}() takes {len(params)} positional arguments")
            for pname, value in zip(params, args, strict=False):
                if pname in kwargs:
                    raise TypeError(f"{name}() got multiple values for argument {pname!r}")
                kwargs[pname] = value
            plain = {k: to_plain(v) for k, v in kwargs.items()}
            if bridge is None:
                raise ToolError(f"tool {name!r} is not connected")
            check_payload(name, "arguments", plain)
            return check_payload(name, "result", bridge(name, plain))

        call_tool.__name__ = call_tool.__qualname__ = name.rpartition(".")[2]
        call_tool.__doc__ = doc
        self._tool_ids.add(id(call_tool))
        return call_tool

    # -- running a cell ----------------------------------------------------------------------------
    def run_cell(self, source: str, deadline: float | None) -> dict[str, Any]:
        """Run one cell until it ends or ``deadline`` (monotonic) passes; never raises."""
        self._out = {"stdout": [], "stderr": []}
        self._size = 0
        self.truncated = False
        self.final = None
        result: dict[str, Any] = {"value": None, "error": None, "timed_out": False}
        self.rich.begin()
        start = time.perf_counter()
        try:
            compiled = compile_cell(source)
        except CellSyntaxError as exc:
            result["error"] = {
                "type": exc.kind,
                "message": str(exc),
                "traceback": f"{exc.kind}: {exc}",
            }
            return self._finish(result, start)
        set_deadline(deadline)
        outer_context = decimal.getcontext()
        decimal.setcontext(self.decimal_context)
        try:
            try:
                if compiled.is_async:  # top-level await: on the session's loop
                    run_cell_code(self.aio, compiled.code, self.globals)
                else:
                    exec(compiled.code, self.globals)
                if compiled.has_value:
                    value = self.globals.pop(VALUE_NAME, None)
                    if value is not None:
                        result["value"] = bounded_repr(value)
                        self.rich.value(value)
            except g.FinalAnswerSignal:
                pass
            except CellTimeout:
                result["timed_out"] = True
            except BaseException as exc:  # the cell's own error, reported to the caller
                result["error"] = describe_error(exc)
        except CellTimeout:
            result["timed_out"] = True
        finally:
            leave_cell()
            self.decimal_context = decimal.getcontext()
            decimal.setcontext(outer_context)
            self.globals.pop(VALUE_NAME, None)
        return self._finish(result, start)

    def _finish(self, result: dict[str, Any], start: float) -> dict[str, Any]:
        result["stdout"] = "".join(self._out["stdout"])
        result["stderr"] = "".join(self._out["stderr"])
        result["truncated"] = self.truncated
        result["duration_s"] = time.perf_counter() - start
        result["is_final_answer"] = self.final is not None
        result["final_answer"] = self.final[0] if self.final is not None else None
        result.update(self.rich.end())
        return result
