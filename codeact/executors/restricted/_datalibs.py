"""What opted-in data libraries hand a cell, in every mode: the guards stay a second layer.

Under bubblewrap the packages' own file I/O stays inside the OS sandbox, but a route to
unguarded Python would leave only the kernel between a cell and the host. So the same routes are
closed with and without it: pickle loaders (``pd.read_pickle``, ``np.load(allow_pickle=True)``,
other packages' ``load``/``loads``) unless the session opted in with ``allow_pickle``; the
packages' internals (``np.lib``, ``pd.io``, ``pd.core``, ``pd.api``...); record arrays and
``np.ndarray(buffer=...)`` with object fields, which turn bytes the cell wrote into object
pointers; pandas options and matplotlib settings that import a module by name or start a program.
String evaluation and dispatch (``pd.eval``, ``df.query``, ``s.agg('name')``) are in
``_dataeval``; matplotlib's settings in ``_mplguard``.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from codeact.executors.restricted import _dataeval, _mplguard
from codeact.executors.restricted._guards import (
    METHOD_GUARDS,
    PRE_GUARDS,
    SANDBOX_CLASSES,
    TYPE_STANDINS,
    WRITABLE_TYPES,
    PolicyError,
)
from codeact.executors.restricted._standins import GuardedType

#: Never exposed from opted-in packages, in any mode: routes to unguarded code or host objects.
CODE_DENY = frozenset(
    {
        "eval",  # pandas.eval is wrapped (_dataeval); any other package's is refused
        "query",
        "ctypeslib",
        "f2py",
        "distutils",
        "testing",
        "show_config",
        "show_versions",
        "show_runtime",
        "lib",  # np.lib.format.read_array(allow_pickle=True), stride_tricks.as_strided
        "core",
        "compat",
        "util",
        "api",  # pd.api.extensions: registering accessors on the host's classes
        "io",  # pd.io: pickle, Styler templates, engines imported by name
        "plotting",  # pd.plotting: plot backends imported by name
        "os",
        "sys",
        "rec",  # record arrays built over raw buffers: object fields from bytes
        "recarray",
        "read_hdf",  # PyTables pickles object columns and evaluates where= strings
        "HDFStore",
        "read_clipboard",  # starts xclip/xsel
        "backends",  # matplotlib backends: modules loaded by name
        "animation",  # writers start ffmpeg/ImageMagick from configurable paths
        "texmanager",
        "dviread",
        "rc_file",  # a matplotlibrc file may set the backend or figure hooks
    }
)
#: Pickle loaders: refused unless the session opted in (``RestrictedExecutor(allow_pickle=True)``).
PICKLE_LOADERS = frozenset({"read_pickle", "load", "loads"})
#: Without an OS sandbox only: the packages' own file I/O outside the working directory.
IO_DENY = frozenset(
    {"to_pickle", "save", "savez", "savez_compressed", "fromfile", "tofile", "rc_params_from_file"}
)
PICKLE_HINT = (
    "pickle runs code from the file when loading; to read your own pickles, create the executor "
    "with RestrictedExecutor(allow_pickle=True) (this removes the guards' layer for the session)"
)


def deny_set(*, os_sandboxed: bool, allow_pickle: bool) -> frozenset[str]:
    """The attribute names an opted-in package's proxy never resolves."""
    deny = CODE_DENY | (frozenset() if allow_pickle else PICKLE_LOADERS)
    return deny if os_sandboxed else deny | IO_DENY


# -- numpy ---------------------------------------------------------------------------------------
class NpzArchive(Mapping[str, Any]):
    """What ``np.load`` of an ``.npz`` gives a cell: the arrays by name, without the real
    ``NpzFile`` (whose ``allow_pickle`` attribute and class would reopen pickle loading)."""

    __slots__ = ("_npz",)
    _npz: Any

    def __init__(self, npz: Any) -> None:
        object.__setattr__(self, "_npz", npz)

    def __getitem__(self, key: str) -> Any:
        return self._npz[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._npz.files)

    def __len__(self) -> int:
        return len(self._npz.files)

    @property
    def files(self) -> list[str]:
        """The names of the arrays in the archive."""
        return list(self._npz.files)

    def close(self) -> None:
        """Close the underlying file."""
        self._npz.close()

    def __enter__(self) -> NpzArchive:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<npz archive: {', '.join(self._npz.files)}>"


def _np_load(real: Callable[..., Any], allow: bool, paths: Any) -> Callable[..., Any]:
    def load(file: Any, mmap_mode: Any = None, allow_pickle: bool = False, **kwargs: Any) -> Any:
        """``numpy.load`` for the sandbox: ``allow_pickle=True`` only where the session opted
        in; ``.npz`` archives come back as a read-only mapping of arrays."""
        if allow_pickle and not allow:
            raise PolicyError(f"np.load(allow_pickle=True) is refused: {PICKLE_HINT}")
        if paths is not None and isinstance(file, str):
            file = paths(file)
        result = real(file, mmap_mode=mmap_mode, allow_pickle=bool(allow_pickle), **kwargs)
        return NpzArchive(result) if type(result).__name__ == "NpzFile" else result

    return load


def _dtype_arg(np: Any, args: list[Any], kwargs: dict[str, Any], pos: int, default: Any) -> Any:
    """Convert the dtype argument once (a cell object could answer differently twice)."""
    if "dtype" in kwargs:
        kwargs["dtype"] = np.dtype(kwargs["dtype"])
        return kwargs["dtype"]
    if len(args) > pos:
        args[pos] = np.dtype(args[pos])
        return args[pos]
    return np.dtype(default)


def check_array_args(real: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Refuse constructing an array of object references over memory the cell supplied (the
    bytes would be read as object pointers); return the (converted) positional arguments."""
    np = sys.modules["numpy"]
    largs = list(args)
    if issubclass(real, np.memmap):
        if _dtype_arg(np, largs, kwargs, 1, np.uint8).hasobject:
            raise PolicyError("np.memmap of object references is refused in the sandbox")
    elif issubclass(real, np.recarray):
        if "buf" in kwargs or len(largs) > 2:
            raise PolicyError("record arrays over a buffer are refused in the sandbox")
    elif real.__new__ is np.ndarray.__new__:
        dtype = _dtype_arg(np, largs, kwargs, 1, float)
        buffer = kwargs.get("buffer", largs[2] if len(largs) > 2 else None)
        if buffer is not None and dtype.hasobject:
            raise PolicyError(
                "np.ndarray(buffer=...) with object fields is refused in the sandbox: the "
                "buffer's bytes would be read as object pointers"
            )
    elif "buffer" in kwargs or "buf" in kwargs:
        raise PolicyError(f"{real.__name__}(buffer=...) is refused in the sandbox")
    return tuple(largs)


#: The checked bases made for cells' array subclasses (they need no stand-in).
_CHECKED: set[type] = set()


@functools.cache
def _checked_subclass(real: type) -> type:
    """The base a cell's ``class M(np.ndarray)`` really gets: construction is checked."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        args = check_array_args(real, args, kwargs)
        return real.__new__(cls, *args, **kwargs)

    ns = {"__new__": __new__, "__module__": real.__module__, "__qualname__": real.__qualname__}
    checked = type(real.__name__, (real,), ns)
    _CHECKED.add(checked)
    return checked


class ArrayClass(GuardedType):
    """Stands in for ``np.ndarray`` and its subclasses: ``isinstance``, class attributes and
    subclassing behave as with the real class; calls are checked by ``check_array_args``."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        real = self._type
        return real(*check_array_args(real, args, kwargs), **kwargs)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type]:
        return (_checked_subclass(self._type),)

    def mro(self) -> list[Any]:
        """The stand-ins of the class's bases (never the real array classes)."""
        return [standin(c) for c in self._type.mro()]


@functools.cache
def _array_standin(real: type) -> ArrayClass:
    return ArrayClass(real)


def standin(value: Any) -> Any:
    """The stand-in for a real numpy array class, or ``value`` itself."""
    np = sys.modules.get("numpy")
    if (
        np is not None
        and isinstance(value, type)
        and issubclass(value, np.ndarray)
        and value not in SANDBOX_CLASSES
        and value not in _CHECKED
    ):
        return _array_standin(value)
    return value


def _guard_mro(obj: Any, name: str, value: Any) -> Any:
    if isinstance(obj, type) and not isinstance(obj, ArrayClass):
        return lambda: [standin(c) for c in obj.mro()]
    return value


def _guard_baseclass(obj: Any, name: str, value: Any) -> Any:
    return standin(value)


def _guard_style(obj: Any, name: str) -> None:
    owner = obj if isinstance(obj, type) else type(obj)
    if any(c.__module__.split(".")[0] == "pandas" for c in owner.__mro__):
        raise PolicyError(
            "DataFrame.style renders jinja2 templates, which run without the sandbox's guards; "
            "use to_html(), to_string() or to_markdown() instead"
        )


# -- pandas options --------------------------------------------------------------------------------
#: pandas options a cell may set: display and behaviour, never engines or backends loaded by name.
OPTION_NAMESPACES = ("display.", "mode.", "future.", "compute.")


@functools.lru_cache(maxsize=1)
def _option_keys() -> frozenset[str]:
    pd = sys.modules["pandas"]
    keys: set[str] = set()
    todo = [("", pd.options)]
    with warnings.catch_warnings():  # reading deprecated options warns
        warnings.simplefilter("ignore")
        _walk_options(todo, keys)
    return frozenset(keys)


def _walk_options(todo: list[tuple[str, Any]], keys: set[str]) -> None:
    while todo:
        prefix, node = todo.pop()
        for name in dir(node):
            value = getattr(node, name)
            if type(value).__name__ == "DictWrapper":
                todo.append((f"{prefix}{name}.", value))
            else:
                keys.add(prefix + name)


def check_option(key: Any) -> str:
    """Refuse a pandas option a cell may not set (full names only: pandas reads partial names as
    regular expressions)."""
    if type(key) is not str or key not in _option_keys() or not key.startswith(OPTION_NAMESPACES):
        raise PolicyError(
            f"pandas option {key!r} cannot be set in the sandbox: give a full option name under "
            f"{', '.join(n.rstrip('.') for n in OPTION_NAMESPACES)} (e.g. 'display.max_rows')"
        )
    return key


def _option_pairs(args: tuple[Any, ...]) -> None:
    if len(args) == 1 and isinstance(args[0], dict):
        args = tuple(x for kv in args[0].items() for x in kv)
    for key in args[::2]:
        check_option(key)


def _checked_options(real: Callable[..., Any]) -> Callable[..., Any]:
    def options(*args: Any, **kwargs: Any) -> Any:
        _option_pairs(args)
        return real(*args, **kwargs)

    options.__name__ = real.__name__
    options.__doc__ = real.__doc__
    return options


class PandasOptions:
    """``pd.options`` for the sandbox: reads as usual; writes only to ``check_option`` names."""

    __slots__ = ("_prefix",)

    def __init__(self, prefix: str = "") -> None:
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        node = sys.modules["pandas"].options
        for part in (self._prefix + name).split("."):
            node = getattr(node, part)
        if type(node).__name__ == "DictWrapper":
            return PandasOptions(f"{self._prefix}{name}.")
        return node

    def __setattr__(self, name: str, value: Any) -> None:
        sys.modules["pandas"].set_option(check_option(self._prefix + name), value)

    def __dir__(self) -> list[str]:
        keys = [k[len(self._prefix) :] for k in _option_keys() if k.startswith(self._prefix)]
        return sorted({k.split(".")[0] for k in keys})

    def __repr__(self) -> str:
        return f"<pandas options {self._prefix.rstrip('.') or '(all)'}>"


WRITABLE_TYPES.add(PandasOptions)


# -- the table ------------------------------------------------------------------------------------
def known_routes(root: str, *, allow_pickle: bool, paths: Any) -> dict[int, Any]:
    """Wrappers for a package's routes, by the id of the real object (one table per session)."""
    table: dict[int, Any] = {}
    if root == "numpy":
        np = sys.modules["numpy"]
        table[id(np.load)] = _np_load(np.load, allow_pickle, paths)
    elif root == "pandas":
        pd = sys.modules["pandas"]
        table[id(pd.eval)] = _dataeval.safe_eval(pd.eval)
        table[id(pd.options)] = PandasOptions()
        for name in ("set_option", "option_context"):
            table[id(getattr(pd, name))] = _checked_options(getattr(pd, name))
    elif root == "matplotlib":
        table.update(_mplguard.wrappers())
    return table


def wrap_value(root: str, value: Any, table: dict[int, Any]) -> Any:
    """The value a cell gets for an attribute of an opted-in package's module."""
    wrapped = table.get(id(value))
    if wrapped is not None:
        return wrapped
    if root == "matplotlib":
        return _mplguard.wrap_rcparams(value)
    return standin(value)


#: Names resolved even though they are in a deny set, because the table wraps them.
WRAPPED_NAMES = frozenset({"eval", "load"})

METHOD_GUARDS["mro"] = _guard_mro
METHOD_GUARDS["baseclass"] = _guard_baseclass
PRE_GUARDS["style"] = _guard_style

TYPE_STANDINS.append(standin)
