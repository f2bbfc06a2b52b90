"""matplotlib settings a cell may not change: backends and figure hooks are modules (and
functions) loaded by name, and some settings name programs matplotlib starts (ffmpeg, LaTeX,
Ghostscript). ``rcParams`` is handed over as a mapping that refuses those keys; ``use``,
``switch_backend``, ``rc``, ``rc_context``, ``style.use``/``context`` and ``savefig`` check theirs;
pandas' ``df.plot``/``hist``/``boxplot`` take no ``backend=`` (pandas imports it by name).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from codeact.executors.restricted._guards import METHOD_GUARDS, PolicyError

#: Backends a cell may pick (all render to files in-process).
BACKENDS = frozenset({"agg", "pdf", "svg", "ps", "cairo", "template"})
#: rcParams a cell may not set (prefixes of the key).
RC_DENY = (
    "backend",
    "interactive",
    "figure.hooks",
    "animation.",
    "text.usetex",
    "text.latex.",
    "pgf.",
    "ps.usedistiller",
    "savefig.directory",
    "webagg.",
    "tk.",
    "macosx.",
    "toolbar",
)


def check_rc_key(key: Any) -> str:
    """Refuse an rcParams key that loads code by name or starts a program."""
    rc = sys.modules["matplotlib"].rcParams
    if type(key) is not str or key not in rc:
        raise KeyError(f"{key!r} is not a valid rc parameter")
    if key.startswith(RC_DENY):
        raise PolicyError(
            f"rcParams[{key!r}] cannot be set in the sandbox (it loads a module by name or "
            "starts a program)"
        )
    return key


def check_backend(name: Any) -> Any:
    """Refuse a backend that is not one of ``BACKENDS`` (others are modules loaded by name)."""
    if name is not None and (type(name) is not str or name.lower() not in BACKENDS):
        raise PolicyError(
            f"backend {name!r} is not available in the sandbox (choose one of "
            f"{', '.join(sorted(BACKENDS))})"
        )
    return name


class GuardedRcParams(MutableMapping[str, Any]):
    """``matplotlib.rcParams`` for the sandbox: reads as usual, writes through ``check_rc_key``."""

    __slots__ = ("_rc",)
    _rc: Any

    def __init__(self, rc: Any) -> None:
        object.__setattr__(self, "_rc", rc)

    def __getitem__(self, key: str) -> Any:
        return self._rc[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._rc[check_rc_key(key)] = value

    def __delitem__(self, key: str) -> None:
        raise PolicyError("rcParams entries cannot be deleted")

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._rc))

    def __len__(self) -> int:
        return len(self._rc)

    def __contains__(self, key: object) -> bool:
        return key in self._rc

    def copy(self) -> Any:
        """A detached copy (a plain ``RcParams``, not the live settings)."""
        return self._rc.copy()

    def find_all(self, pattern: str) -> Any:
        """The settings whose keys match ``pattern`` (a detached copy)."""
        return self._rc.find_all(pattern)

    def __repr__(self) -> str:
        return repr(self._rc)


def _rc_mapping(rc: Any) -> None:
    if rc is None:
        return
    for key in rc._rc if isinstance(rc, GuardedRcParams) else dict(rc):
        check_rc_key(key)


def _style(style: Any) -> None:
    mstyle = sys.modules["matplotlib.style"]
    items = style if isinstance(style, (list, tuple)) else [style]
    for item in items:
        if isinstance(item, str):
            if item not in mstyle.available and item not in ("default", "classic"):
                raise PolicyError(
                    f"style {item!r} is not available in the sandbox: use a name from "
                    "plt.style.available or a dict of settings"
                )
        else:
            _rc_mapping(item)


def _wrap(real: Callable[..., Any], check: Callable[..., None]) -> Callable[..., Any]:
    def checked(*args: Any, **kwargs: Any) -> Any:
        check(*args, **kwargs)
        return real(*args, **kwargs)

    checked.__name__ = getattr(real, "__name__", "function")
    checked.__doc__ = getattr(real, "__doc__", None)
    return checked


def _use(*args: Any, **kwargs: Any) -> None:
    check_backend(args[0] if args else kwargs.get("backend", kwargs.get("newbackend")))


def _rc(group: Any, **kwargs: Any) -> None:
    groups = (group,) if isinstance(group, str) else tuple(group)
    for g in groups:
        for key in kwargs:
            check_rc_key(f"{g}.{key}")


def _rc_context(rc: Any = None, fname: Any = None) -> None:
    if fname is not None:
        raise PolicyError("rc_context(fname=...) is not available in the sandbox; pass rc=")
    _rc_mapping(rc)


def _style_use(style: Any, *args: Any, **kwargs: Any) -> None:
    _style(style)


def _savefig(*args: Any, **kwargs: Any) -> None:
    check_backend(kwargs.get("backend"))


def wrappers() -> dict[int, Any]:
    """matplotlib's name-loading functions, wrapped, by the id of the real function."""
    import matplotlib
    import matplotlib.pyplot as plt
    import matplotlib.style as mstyle

    pairs: list[tuple[Any, Callable[..., None]]] = [
        (matplotlib.use, _use),
        (plt.switch_backend, _use),
        (matplotlib.rc, _rc),
        (plt.rc, _rc),
        (matplotlib.rc_context, _rc_context),
        (plt.rc_context, _rc_context),
        (mstyle.use, _style_use),
        (mstyle.context, _style_use),
        (plt.savefig, _savefig),
    ]
    return {id(real): _wrap(real, check) for real, check in pairs}


def wrap_rcparams(value: Any) -> Any:
    """Any ``RcParams`` a module hands out (the live settings and their defaults) as a guarded
    mapping: ``rcdefaults()`` copies the defaults into the live settings."""
    rc_type = getattr(sys.modules.get("matplotlib"), "RcParams", None)
    if rc_type is not None and type(value) is rc_type:
        return GuardedRcParams(value)
    return value


def _guard_savefig(obj: Any, name: str, value: Any) -> Any:
    fn = value.__func__ if isinstance(value, types.MethodType) else value
    module = getattr(fn, "__module__", None)
    if type(module) is str and module.split(".")[0] == "matplotlib":
        return _wrap(value, _savefig)
    return value


# -- pandas plotting backends -----------------------------------------------------------------
def _pandas_backend(kwargs: dict[str, Any]) -> None:
    """pandas imports a plotting ``backend=`` given by name: only matplotlib's is allowed."""
    if kwargs.get("backend") not in (None, "matplotlib"):
        raise PolicyError("plotting backend= other than 'matplotlib' is refused in the sandbox")


def _no_backend(fn: Callable[..., Any]) -> Callable[..., Any]:
    def plot(*args: Any, **kwargs: Any) -> Any:
        _pandas_backend(kwargs)
        return fn(*args, **kwargs)

    plot.__name__ = getattr(fn, "__name__", "plot")
    plot.__doc__ = getattr(fn, "__doc__", None)
    return plot


class PlotAccessor:
    """``df.plot`` for the sandbox: ``df.plot(...)``, ``df.plot.bar(...)`` as usual, without a
    ``backend=`` loaded by name."""

    __slots__ = ("_accessor",)
    _accessor: Any

    def __init__(self, accessor: Any) -> None:
        object.__setattr__(self, "_accessor", accessor)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _no_backend(self._accessor)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._accessor, name)
        return _no_backend(value) if callable(value) else value


def _guard_plot(obj: Any, name: str, value: Any) -> Any:
    module = type(value).__module__.split(".")[0]
    if module == "pandas" and type(value).__name__ == "PlotAccessor":
        return PlotAccessor(value)
    if isinstance(value, type) and value.__module__.split(".")[0] == "pandas":
        raise PolicyError(f"use {name} on a DataFrame or Series, e.g. df.{name}(...)")
    fn = value.__func__ if isinstance(value, types.MethodType) else value
    if isinstance(fn, types.FunctionType) and fn.__module__.split(".")[0] == "pandas":
        return _no_backend(value)
    return value


METHOD_GUARDS["savefig"] = _guard_savefig
METHOD_GUARDS["print_figure"] = _guard_savefig
for _name in ("plot", "hist", "boxplot"):
    METHOD_GUARDS[_name] = _guard_plot
