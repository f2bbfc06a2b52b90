"""Standard-library modules whose state belongs to one session: ``warnings`` (filters, once
registries, ``catch_warnings``) and ``pprint`` (prints to the cell's stdout).

The interpreter's own ``warnings`` module is shared by every session of an inline executor and
by the host itself: a cell's ``simplefilter("error")`` must not turn the host's warnings into
errors, and a cell must not install a ``showwarning`` hook that host code would later call. So
cells get a module of their own, read-only like every module proxy; warnings go to the cell's
stderr in CPython's format.
"""

from __future__ import annotations

import pprint as _pprint
import re
import sys
from typing import Any

from codeact.executors.restricted._sizes import MAX_WIDTH

#: How the pseudo-filenames of cells begin (``compile_cell`` names them ``<cell-N-digest>``).
CELL_PREFIX = "<cell-"
_ACTIONS = ("error", "ignore", "always", "default", "module", "once")
#: CPython's default filters (a release build), as seen from ``__main__``.
_DEFAULTS: list[tuple[str, Any, type, Any, int]] = [
    ("default", None, DeprecationWarning, re.compile("__main__"), 0),
    ("ignore", None, DeprecationWarning, None, 0),
    ("ignore", None, PendingDeprecationWarning, None, 0),
    ("ignore", None, ImportWarning, None, 0),
    ("ignore", None, ResourceWarning, None, 0),
]


class WarningMessage:
    """One recorded warning (what ``catch_warnings(record=True)`` collects)."""

    def __init__(
        self,
        message: Any,
        category: type,
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
        source: Any = None,
    ) -> None:
        self.message = message
        self.category = category
        self.filename = filename
        self.lineno = lineno
        self.file = file
        self.line = line
        self.source = source

    def __str__(self) -> str:
        return (
            f"{{message : {self.message!r}, category : {self.category.__name__!r}, "
            f"filename : {self.filename!r}, lineno : {self.lineno}, line : {self.line!r}}}"
        )


def formatwarning(
    message: Any, category: type, filename: str, lineno: int, line: str | None = None
) -> str:
    """The text of one warning, as CPython formats it."""
    text = f"{filename}:{lineno}: {category.__name__}: {message}\n"
    if line and line.strip():
        text += f"  {line.strip()}\n"
    return text


def _category(category: Any) -> type:
    if not (isinstance(category, type) and issubclass(category, Warning)):
        raise TypeError(f"category must be a Warning subclass, not '{type(category).__name__}'")
    return category


def _cell_frame(level: int) -> tuple[str, int]:
    """The place ``stacklevel=level`` names, counting only the cells' own frames: the host's
    frames between and below them (guards, the executor, threads) are skipped, so a warning
    never names a file of the host; past the outermost cell frame it is ``sys``, line 1, as
    CPython says past the top of the stack."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith(CELL_PREFIX):
            level -= 1
            if level == 0:
                return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return "sys", 1


class SessionWarnings:
    """The ``warnings`` module of one session."""

    def __init__(self, stderr: Any, sources: dict[str, str]) -> None:
        self._stderr = stderr
        self._sources = sources
        self.filters: list[tuple[str, Any, type, Any, int]] = list(_DEFAULTS)
        self._seen: set[tuple[Any, ...]] = set()
        self._record: list[WarningMessage] | None = None

    def attrs(self) -> dict[str, Any]:
        """The module's attributes."""
        return {
            "warn": self.warn,
            "simplefilter": self.simplefilter,
            "filterwarnings": self.filterwarnings,
            "resetwarnings": self.resetwarnings,
            "catch_warnings": self.catch_warnings,
            "formatwarning": formatwarning,
            "showwarning": self.showwarning,
            "WarningMessage": WarningMessage,
        }

    def simplefilter(
        self, action: str, category: Any = Warning, lineno: int = 0, append: bool = False
    ) -> None:
        """Add a filter for every message of ``category``."""
        self.filterwarnings(action, "", category, "", lineno, append)

    def filterwarnings(
        self,
        action: str,
        message: str = "",
        category: Any = Warning,
        module: str = "",
        lineno: int = 0,
        append: bool = False,
    ) -> None:
        """Add a filter (as ``warnings.filterwarnings``)."""
        if action not in _ACTIONS:
            raise ValueError(f"invalid action: {action!r}")
        if not isinstance(message, str) or not isinstance(module, str):
            raise TypeError("message and module must be strings")
        if type(lineno) is not int or lineno < 0:
            raise ValueError("lineno must be an int >= 0")
        entry = (
            action,
            re.compile(message, re.I) if message else None,
            _category(category),
            re.compile(module) if module else None,
            lineno,
        )
        if entry in self.filters:
            self.filters.remove(entry)
        self.filters.append(entry) if append else self.filters.insert(0, entry)
        self._seen.clear()

    def resetwarnings(self) -> None:
        """Drop every filter (every warning then shows once per place)."""
        self.filters.clear()
        self._seen.clear()

    def catch_warnings(self, *, record: bool = False, action: Any = None, **kw: Any) -> Any:
        """Save and restore the filters around a ``with`` block; ``record=True`` collects the
        warnings in the list the block gets."""
        return _CatchWarnings(self, record, action, kw)

    def warn(
        self, message: Any, category: Any = None, stacklevel: int = 1, source: Any = None
    ) -> None:
        """Issue a warning from the cell (as ``warnings.warn``)."""
        if isinstance(message, Warning):
            category = type(message)
        category = _category(UserWarning if category is None else category)
        filename, lineno = _cell_frame(max(int(stacklevel), 1))
        text = str(message)
        action = self._action(text, category, lineno)
        if action == "error":
            raise message if isinstance(message, Warning) else category(text)
        if action == "ignore" or not self._first(action, text, category, filename, lineno):
            return
        if not isinstance(message, Warning):
            message = category(text)
        lines = self._sources.get(filename, "").splitlines()
        line = lines[lineno - 1] if 0 < lineno <= len(lines) else None
        if self._record is not None:
            self._record.append(WarningMessage(message, category, filename, lineno, None, line))
        else:
            self.showwarning(message, category, filename, lineno, None, line)

    def showwarning(
        self,
        message: Any,
        category: Any,
        filename: Any,
        lineno: Any,
        file: Any = None,
        line: Any = None,
    ) -> None:
        """Write a warning to the cell's stderr (or ``file``)."""
        text = formatwarning(message, category, filename, lineno, line)
        (self._stderr if file is None else file).write(text)

    def _action(self, text: str, category: type, lineno: int) -> str:
        for action, msg, cat, mod, line in self.filters:
            if (
                (msg is None or msg.match(text))
                and issubclass(category, cat)
                and (mod is None or mod.match("__main__"))
                and (line == 0 or line == lineno)
            ):
                return action
        return "default"

    def _first(self, action: str, text: str, category: type, filename: str, lineno: int) -> bool:
        if action == "always":
            return True
        key: tuple[Any, ...] = {
            "once": (text, category),
            "module": (text, category, filename),
        }.get(action, (text, category, filename, lineno))
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


class _CatchWarnings:
    """``warnings.catch_warnings`` of one session."""

    def __init__(self, owner: SessionWarnings, record: bool, action: Any, kw: dict[str, Any]):
        if kw and action is None:
            raise TypeError(f"catch_warnings() got unexpected arguments {sorted(kw)}")
        self._owner = owner
        self._recording = record
        self._action = action
        self._kw = kw
        self._saved: Any = None

    def __enter__(self) -> list[WarningMessage] | None:
        if self._saved is not None:
            raise RuntimeError(f"Cannot enter {self!r} twice")
        owner = self._owner
        self._saved = (list(owner.filters), set(owner._seen), owner._record)
        owner._seen.clear()
        if self._action is not None:
            owner.simplefilter(self._action, **self._kw)
        if self._recording:
            owner._record = []
            return owner._record
        return None

    def __exit__(self, *exc: Any) -> None:
        if self._saved is None:
            raise RuntimeError(f"Cannot exit {self!r} without entering first")
        owner = self._owner
        owner.filters[:], owner._seen, owner._record = self._saved
        self._saved = None

    def __repr__(self) -> str:
        return f"catch_warnings(record={self._recording})"


def session_pprint(stdout: Any) -> dict[str, Any]:
    """The ``pprint`` module of one session: ``pprint`` prints to the cell's stdout."""

    def pprint(obj: Any, stream: Any = None, **kwargs: Any) -> None:
        """Pretty-print ``obj`` to the cell's stdout (or ``stream``)."""
        text = pformat(obj, **kwargs)
        (stdout if stream is None else stream).write(text + "\n")

    return {"pformat": pformat, "pprint": pprint}


def pformat(obj: Any, indent: int = 1, width: int = 80, **kwargs: Any) -> str:
    """``pprint.pformat`` with the indent and width bounded (a huge indent is a memory bomb)."""
    for name, value in (("indent", indent), ("width", width)):
        if isinstance(value, int) and value > MAX_WIDTH:
            raise ValueError(f"pformat: {name}={value} is larger than the sandbox allows")
    return _pprint.pformat(obj, indent, width, **kwargs)
