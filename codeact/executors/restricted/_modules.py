"""Module proxies: the sandbox never holds a real module object.

Allowed standard-library modules are exposed through immutable proxies that carry only the
attributes on a per-module allow-list — allowed modules re-export dangerous ones through public
attributes (``datetime.sys``, ``dataclasses.builtins``, ``json.codecs``, ``io.open``...) and some
of their functions evaluate strings or use the real ``getattr`` (``typing.get_type_hints``,
``functools.singledispatch``, ``operator.attrgetter``). Third-party packages opted in by the user
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
from codeact.executors.restricted._guards import (
    DANGEROUS_IDS,
    READ_ONLY_TYPES,
    PolicyError,
    safe_sleep,
)

_S = str.split
#: The default allow-list: module → public attributes the sandbox may use.
STDLIB_ALLOWED: dict[str, list[str]] = {
    "math": [n for n in dir(__import__("math")) if not n.startswith("_")],
    "cmath": [n for n in dir(__import__("cmath")) if not n.startswith("_")],
    "statistics": _S(
        "mean fmean geometric_mean harmonic_mean median median_low median_high median_grouped "
        "mode multimode pstdev pvariance stdev variance quantiles covariance correlation "
        "linear_regression NormalDist StatisticsError"
    ),
    "json": _S("loads dumps JSONDecodeError JSONEncoder JSONDecoder"),
    "re": _S(
        "compile match search fullmatch findall finditer sub subn split escape purge error "
        "Pattern Match IGNORECASE I MULTILINE M DOTALL S VERBOSE X ASCII A UNICODE U NOFLAG"
    ),
    "datetime": _S("date datetime time timedelta timezone tzinfo MINYEAR MAXYEAR UTC"),
    "time": _S(
        "time time_ns monotonic monotonic_ns perf_counter perf_counter_ns process_time strftime "
        "strptime gmtime localtime mktime asctime ctime struct_time timezone altzone daylight "
        "tzname"
    ),
    "calendar": _S(
        "isleap leapdays monthrange weekday monthcalendar month_name month_abbr day_name "
        "day_abbr MONDAY TUESDAY WEDNESDAY THURSDAY FRIDAY SATURDAY SUNDAY"
    ),
    "collections": _S(
        "Counter defaultdict OrderedDict deque namedtuple ChainMap UserDict UserList"
    ),
    "itertools": [n for n in dir(__import__("itertools")) if not n.startswith("_")],
    "functools": _S(
        "reduce partial lru_cache cache wraps total_ordering cmp_to_key cached_property "
        "update_wrapper partialmethod"
    ),
    "random": _S(
        "random randint randrange choice choices shuffle sample uniform gauss seed getrandbits "
        "triangular betavariate expovariate gammavariate lognormvariate normalvariate "
        "vonmisesvariate paretovariate weibullvariate Random randbytes"
    ),
    "string": _S(
        "ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits punctuation "
        "printable whitespace capwords Template"
    ),
    "decimal": _S(
        "Decimal localcontext Context DecimalException InvalidOperation DivisionByZero Inexact "
        "Rounded ROUND_CEILING ROUND_DOWN ROUND_FLOOR ROUND_HALF_DOWN ROUND_HALF_EVEN "
        "ROUND_HALF_UP ROUND_UP ROUND_05UP"
    ),
    "fractions": _S("Fraction"),
    "csv": _S(
        "reader writer DictReader DictWriter Sniffer excel excel_tab unix_dialect Error "
        "QUOTE_ALL QUOTE_MINIMAL QUOTE_NONE QUOTE_NONNUMERIC"
    ),
    "io": _S("StringIO BytesIO"),
    "dataclasses": _S(
        "dataclass field fields asdict astuple replace is_dataclass FrozenInstanceError InitVar "
        "KW_ONLY MISSING"
    ),
    "typing": _S(
        "Any Optional Union List Dict Tuple Set FrozenSet Callable Iterable Iterator Sequence "
        "Mapping MutableMapping MutableSequence Generator NamedTuple TypedDict Literal TypeVar "
        "Generic cast overload Final ClassVar Protocol Annotated Self Never NoReturn "
        "DefaultDict Counter Deque Type"
    ),
    "textwrap": _S("wrap fill dedent indent shorten TextWrapper"),
    "heapq": _S("heappush heappop heapify heapreplace heappushpop nlargest nsmallest merge"),
    "bisect": _S("bisect bisect_left bisect_right insort insort_left insort_right"),
    "enum": _S("Enum IntEnum Flag IntFlag StrEnum auto unique"),
    "copy": _S("copy deepcopy Error"),
    "operator": _S(
        "itemgetter add sub mul truediv floordiv mod pow neg pos abs eq ne lt le gt ge not_ "
        "truth and_ or_ xor contains countOf indexOf concat iadd"
    ),
    "string.templatelib": [],
    "uuid": _S("uuid4 UUID"),
    "hashlib": _S("md5 sha1 sha256 sha512 blake2b"),
    "base64": _S("b64encode b64decode urlsafe_b64encode urlsafe_b64decode b32encode b16encode"),
    "pprint": _S("pformat"),
    "unicodedata": _S("name lookup category normalize numeric decimal digit"),
}
STDLIB_ALLOWED.pop("string.templatelib")


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
}


def _stdlib_proxy(name: str) -> ModuleProxy:
    module = importlib.import_module(name)
    attrs: dict[str, Any] = {}
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
                proxy = self._stdlib_cache[name] = _stdlib_proxy(name)
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
        raise ImportError(
            f"import of {name!r} is not allowed in the sandbox. Allowed modules: "
            f"{', '.join(self.allowed_names())}"
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
                return self.get(name)
            top = name.split(".")[0]
            if "." in name:
                self.get(name)  # must be allowed itself
            return self.get(top)

        return guarded_import


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
