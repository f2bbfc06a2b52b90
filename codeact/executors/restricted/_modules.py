"""Module proxies: the sandbox never holds a real module object.

Allowed standard-library modules are exposed through immutable proxies that carry only the
attributes on a per-module allow-list (``_stdlib.REVIEWED``, a note per module) — allowed modules
re-export dangerous ones through public attributes (``datetime.sys``, ``dataclasses.builtins``,
``json.codecs``, ``io.open``...) and some of their functions evaluate strings or use the real
``getattr`` (``typing.get_type_hints``, ``operator.attrgetter``; ``functools.singledispatch`` is
wrapped: ``_stdwrap``). Modules with per-session state (``warnings``, ``pprint``, ``asyncio``,
``sys``) are built by the session. Third-party packages opted in by the user
(pandas, numpy...) get a proxy that exposes public attributes except a deny-list, wrapping
submodules in proxies in turn and the routes ``_datalibs`` knows in checking wrappers.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from codeact.executors.restricted._dataclasses import safe_make_dataclass
from codeact.executors.restricted._datalibs import (
    WRAPPED_NAMES,
    deny_set,
    known_routes,
    wrap_value,
)
from codeact.executors.restricted._deadline import safe_sleep
from codeact.executors.restricted._guards import (
    DANGEROUS_IDS,
    READ_ONLY_TYPES,
    PolicyError,
)
from codeact.executors.restricted._stdlib import HOST_MODULES, STDLIB_ALLOWED
from codeact.executors.restricted._stdwrap import WRAPPED


class ModuleProxy:
    """A read-only stand-in for a module, exposing only allowed attributes.

    The allowed attributes sit in the proxy's own ``__dict__``, so ``math.sqrt`` is an ordinary
    attribute read; ``__getattr__`` runs only for a name not seen yet (resolving it lazily for
    third-party packages). Cells cannot reach the ``__dict__`` or the underscore slots: dunder
    and private names are refused by the policy and by ``getattr``.
    """

    __slots__ = ("__dict__", "_codeact_name", "_codeact_resolver")

    def __init__(
        self,
        name: str,
        attrs: dict[str, Any],
        resolver: Callable[[str], Any] | None = None,
    ) -> None:
        try:
            object.__getattribute__(self, "_codeact_name")
        except AttributeError:
            pass
        else:  # ``math.__init__(...)`` from a cell must not re-point the proxy
            raise PolicyError("modules are read-only in the sandbox")
        object.__setattr__(self, "_codeact_name", name)
        object.__setattr__(self, "_codeact_resolver", resolver)
        object.__getattribute__(self, "__dict__").update(attrs)

    def __getattr__(self, attr: str) -> Any:
        name = object.__getattribute__(self, "_codeact_name")
        resolver = object.__getattribute__(self, "_codeact_resolver")
        if resolver is not None and not attr.startswith("_"):
            value = resolver(attr)
            if value is not _MISSING:
                object.__getattribute__(self, "__dict__")[attr] = value
                return value
        raise AttributeError(f"module {name!r} has no attribute {attr!r} in the sandbox")

    def __setattr__(self, attr: str, value: Any) -> None:
        raise PolicyError("modules are read-only in the sandbox")

    def __delattr__(self, attr: str) -> None:
        raise PolicyError("modules are read-only in the sandbox")

    def __dir__(self) -> list[str]:
        return sorted(object.__getattribute__(self, "__dict__"))

    def __repr__(self) -> str:
        return f"<module {object.__getattribute__(self, '_codeact_name')!r} (sandboxed)>"


_MISSING = object()
READ_ONLY_TYPES.append(ModuleProxy)


_OVERRIDES: dict[tuple[str, str], Any] = {
    ("time", "sleep"): safe_sleep,
    ("dataclasses", "make_dataclass"): safe_make_dataclass,
    **WRAPPED,
}


def _stdlib_proxy(name: str, subs: dict[str, ModuleProxy]) -> ModuleProxy:
    module = importlib.import_module(name)
    attrs: dict[str, Any] = dict(subs)
    for attr in STDLIB_ALLOWED[name]:
        value = getattr(module, attr, _MISSING)
        if value is not _MISSING and not isinstance(value, types.ModuleType):
            attrs[attr] = value
    for (mod, attr), value in _OVERRIDES.items():
        if mod == name:
            attrs[attr] = value
    return ModuleProxy(name, attrs)


PathResolver = Callable[[Any], str]


def _third_party_proxy(
    name: str, root: str, paths: PathResolver | None, deny: frozenset[str], known: dict[int, Any]
) -> ModuleProxy:
    """A proxy for an opted-in package; ``paths`` confines its readers to the working directory
    (no OS sandbox), ``None`` means the OS sandbox is the boundary. ``deny`` and ``known`` (the
    session's wrappers by the id of the real object) are ``_datalibs``'s, the same in every
    mode: routes to unguarded code are closed with or without the OS sandbox."""
    module = importlib.import_module(name)

    def resolve(attr: str) -> Any:
        if attr in deny and attr not in WRAPPED_NAMES:
            return _MISSING
        value = getattr(module, attr, _MISSING)
        if value is _MISSING or id(value) in DANGEROUS_IDS:
            return _MISSING
        if id(value) in known:
            return known[id(value)]
        if attr in deny:
            return _MISSING
        if isinstance(value, types.ModuleType):
            sub = value.__name__
            if sub == root or sub.startswith(root + "."):
                return _third_party_proxy(sub, root, paths, deny, known)
            return _MISSING
        if paths is not None and attr.startswith("read_") and callable(value):
            return _confined_reader(value, paths)
        return wrap_value(root, value, known)

    return ModuleProxy(name, {}, resolve)


def _confined_reader(fn: Callable[..., Any], paths: PathResolver) -> Callable[..., Any]:
    """Wrap a ``read_*`` function so a string path is resolved inside the working directory."""

    def reader(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], str):
            args = (paths(args[0]), *args[1:])
        for key in ("filepath_or_buffer", "path", "path_or_buf", "io"):
            if isinstance(kwargs.get(key), str):
                kwargs[key] = paths(kwargs[key])
        return fn(*args, **kwargs)

    reader.__name__ = getattr(fn, "__name__", "reader")
    reader.__doc__ = getattr(fn, "__doc__", None)
    return reader


class ModuleTable:
    """The modules one session may import, created lazily and shared across sessions."""

    _stdlib_cache: ClassVar[dict[str, ModuleProxy]] = {}

    def __init__(
        self,
        extra_modules: Iterable[str] = (),
        extra: dict[str, Any] | None = None,
        paths: PathResolver | None = None,
        allow_pickle: bool = False,
    ):
        self.third_party = sorted(set(extra_modules) - set(STDLIB_ALLOWED))
        self.extra = dict(extra or {})
        self.paths = paths
        self.allow_pickle = allow_pickle
        self._deny = deny_set(os_sandboxed=paths is None, allow_pickle=allow_pickle)
        self._known: dict[str, dict[int, Any]] = {}
        self._third_cache: dict[str, ModuleProxy] = {}

    def allowed_names(self) -> list[str]:
        """Every importable module name, for error messages and prompts."""
        return sorted({*STDLIB_ALLOWED, *self.third_party, *self.extra})

    def get(self, name: str) -> Any:
        """The proxy for ``name`` or raise ``ImportError`` naming what is allowed."""
        if name in self.extra:
            return self.extra[name]
        if name in STDLIB_ALLOWED:
            proxy = self._stdlib_cache.get(name)
            if proxy is None:
                subs = {
                    sub.rpartition(".")[2]: self.get(sub)
                    for sub in STDLIB_ALLOWED
                    if sub.rpartition(".")[0] == name
                    and sub.rpartition(".")[2] in STDLIB_ALLOWED[name]
                }
                proxy = self._stdlib_cache[name] = _stdlib_proxy(name, subs)
            return proxy
        root = name.split(".")[0]
        if root in self.third_party:
            proxy = self._third_cache.get(name)
            if proxy is None:
                try:
                    known = self._known.get(root)
                    if known is None:
                        importlib.import_module(root)
                        known = self._known[root] = known_routes(
                            root, allow_pickle=self.allow_pickle, paths=self.paths
                        )
                    proxy = _third_party_proxy(name, root, self.paths, self._deny, known)
                    self._third_cache[name] = proxy
                except ImportError as exc:
                    raise ImportError(
                        f"module {name!r} is allowed but not installed: {exc}"
                    ) from None
            return proxy
        instead = HOST_MODULES.get(root)
        why = f" (it reaches the host; instead: {instead})" if instead else ""
        raise ImportError(
            f"import of {name!r} is not allowed in the sandbox{why}. Allowed modules: "
            f"{', '.join(self.allowed_names())}",
            name=name,
        )

    def importer(self) -> Callable[..., Any]:
        """The ``__import__`` the sandbox's builtins get."""

        def guarded_import(
            name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
        ) -> Any:
            if type(fromlist) is list and fromlist in ([], ["__doc__"]) and level == 0:
                # PyImport_Import from C code (e.g. datetime.strptime importing _strptime): cell
                # code never passes a list (IMPORT_NAME gives None or a tuple). A host import
                # whose result the C caller takes from sys.modules; the sandbox never sees it.
                importlib.import_module(name)
                return None
            if level:
                raise ImportError("relative imports are not allowed in the sandbox")
            if fromlist:
                module = self.get(name)
                self._check_fromlist(name, module, fromlist)
                return module
            top = name.split(".")[0]
            if "." in name:
                self.get(name)  # must be allowed itself
            return self.get(top)

        return guarded_import

    def _check_fromlist(self, name: str, module: Any, fromlist: Any) -> None:
        """``from name import x``: a name the sandbox does not expose is an ``ImportError`` that
        names the module (CPython's would say ``'<unknown module name>'`` for a proxy)."""
        for attr in fromlist:
            if attr == "*" or not isinstance(attr, str):
                continue
            try:
                getattr(module, attr)
            except AttributeError:
                raise ImportError(
                    f"cannot import name {attr!r} from {name!r}: the sandbox's {name!r} does "
                    f"not offer it (available: {', '.join(dir(module)) or 'nothing'})",
                    name=name,
                ) from None


def fake_sys(stdout: Any, stderr: Any) -> ModuleProxy:
    """A ``sys`` with only harmless attributes and the cell's captured streams."""
    attrs = {
        "stdout": stdout,
        "stderr": stderr,
        "version": sys.version,
        "version_info": sys.version_info,
        "maxsize": sys.maxsize,
        "float_info": sys.float_info,
        "int_info": sys.int_info,
        "byteorder": sys.byteorder,
        "platform": sys.platform,
        "getrecursionlimit": sys.getrecursionlimit,
    }
    return ModuleProxy("sys", attrs)
