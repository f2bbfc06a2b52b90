"""The reviewed standard library: each module cells may import, the attributes they get, and why
that is safe (or what is wrapped); and the modules that are never allowed, with what to use.

A module's proxy carries only the listed attributes; names that are missing on this Python are
skipped. Wrapped names (``_stdwrap``) replace the real ones; modules marked *per session* are
built by the session (their state must not be shared across sessions in one process).
"""

from __future__ import annotations

import importlib
import stat as _stat

from codeact.executors.restricted._asyncrun import ASYNCIO_NAMES

_S = str.split


def _public(module: str) -> list[str]:
    return [n for n in dir(importlib.import_module(module)) if not n.startswith("_")]


#: module → (why it is safe / what is wrapped, the attributes cells get).
REVIEWED: dict[str, tuple[str, list[str]]] = {
    "math": ("pure functions on numbers", _public("math")),
    "cmath": ("pure functions on numbers", _public("cmath")),
    "statistics": (
        "pure functions on sequences (statistics.sys is not exposed)",
        _S(
            "mean fmean geometric_mean harmonic_mean median median_low median_high "
            "median_grouped mode multimode pstdev pvariance stdev variance quantiles covariance "
            "correlation linear_regression NormalDist StatisticsError"
        ),
    ),
    "json": (
        "text ↔ plain data; no file or codec helpers",
        _S("loads dumps JSONDecodeError JSONEncoder JSONDecoder"),
    ),
    "re": (
        "pattern matching on strings",
        _S(
            "compile match search fullmatch findall finditer sub subn split escape purge error "
            "Pattern Match IGNORECASE I MULTILINE M DOTALL S VERBOSE X ASCII A UNICODE U NOFLAG"
        ),
    ),
    "datetime": (
        "values; datetime.sys is not exposed",
        _S("date datetime time timedelta timezone tzinfo MINYEAR MAXYEAR UTC"),
    ),
    "zoneinfo": (
        "time zones from the system's read-only tz database (keys with '..' or absolute paths "
        "are refused by zoneinfo itself); no listing of the host's files",
        _S("ZoneInfo ZoneInfoNotFoundError"),
    ),
    "time": (
        "clocks and formatting; sleep is sliced so the cell's deadline applies",
        _S(
            "time time_ns monotonic monotonic_ns perf_counter perf_counter_ns process_time "
            "strftime strptime gmtime localtime mktime asctime ctime struct_time timezone altzone "
            "daylight tzname sleep"
        ),
    ),
    "calendar": (
        "pure date arithmetic",
        _S(
            "isleap leapdays monthrange weekday monthcalendar month_name month_abbr day_name "
            "day_abbr MONDAY TUESDAY WEDNESDAY THURSDAY FRIDAY SATURDAY SUNDAY"
        ),
    ),
    "collections": (
        "containers",
        _S(
            "Counter defaultdict OrderedDict deque namedtuple ChainMap UserDict UserList "
            "UserString abc"
        ),
    ),
    "collections.abc": (
        "abstract base classes for isinstance checks and subclassing",
        _public("collections.abc"),
    ),
    "abc": (
        "ABC and abstractmethod; not ABCMeta, whose call would build a class from a raw "
        "namespace, past the class-body checks",
        _S("ABC abstractmethod"),
    ),
    "numbers": (
        "the numeric tower's abstract classes",
        _S("Number Complex Real Rational Integral"),
    ),
    "itertools": (
        "iterator building blocks (sizes are bounded by the cell's memory limit)",
        _public("itertools"),
    ),
    "functools": (
        "higher-order helpers; singledispatch is wrapped: register() takes classes and "
        "annotations that are classes, never strings (functools would eval them)",
        _S(
            "reduce partial lru_cache cache wraps total_ordering cmp_to_key cached_property "
            "update_wrapper partialmethod singledispatch"
        ),
    ),
    "random": (
        "pseudo-random numbers (seeded per process)",
        _S(
            "random randint randrange choice choices shuffle sample uniform gauss seed "
            "getrandbits triangular betavariate expovariate gammavariate lognormvariate "
            "normalvariate vonmisesvariate paretovariate weibullvariate Random randbytes"
        ),
    ),
    "secrets": (
        "random tokens from the OS's generator",
        _S("token_bytes token_hex token_urlsafe choice randbelow compare_digest"),
    ),
    "string": (
        "constants, capwords, Template (substitution only: no attribute walks)",
        _S(
            "ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits "
            "punctuation printable whitespace capwords Template"
        ),
    ),
    "decimal": (
        "exact decimals; the context is the session's own (set around each cell), and the "
        "process-wide templates DefaultContext/BasicContext/ExtendedContext are not exposed; "
        "precision and exponents are bounded (values, contexts, localcontext, setcontext) so no "
        "single C call runs for minutes, and Decimal/Context cannot be subclassed",
        _S(
            "Decimal getcontext setcontext localcontext Context DecimalException DecimalTuple "
            "InvalidOperation DivisionByZero Inexact Rounded Clamped Overflow Underflow "
            "Subnormal FloatOperation DivisionImpossible DivisionUndefined InvalidContext "
            "ConversionSyntax ROUND_CEILING ROUND_DOWN ROUND_FLOOR ROUND_HALF_DOWN "
            "ROUND_HALF_EVEN ROUND_HALF_UP ROUND_UP ROUND_05UP MAX_PREC MAX_EMAX MIN_EMIN "
            "MIN_ETINY"
        ),
    ),
    "fractions": ("exact rationals", _S("Fraction")),
    "csv": (
        "readers and writers over objects the cell already has (open() is confined)",
        _S(
            "reader writer DictReader DictWriter Sniffer excel excel_tab unix_dialect Error "
            "QUOTE_ALL QUOTE_MINIMAL QUOTE_NONE QUOTE_NONNUMERIC"
        ),
    ),
    "io": ("in-memory streams only (no io.open, FileIO)", _S("StringIO BytesIO")),
    "dataclasses": (
        "make_dataclass is wrapped (no raw namespaces); dataclasses.sys/builtins not exposed",
        _S(
            "dataclass field fields asdict astuple replace is_dataclass FrozenInstanceError "
            "InitVar KW_ONLY MISSING make_dataclass"
        ),
    ),
    "typing": (
        "annotation helpers; get_type_hints is not exposed (it evals strings)",
        _S(
            "Any Optional Union List Dict Tuple Set FrozenSet Callable Iterable Iterator "
            "Sequence Mapping MutableMapping MutableSequence Generator NamedTuple TypedDict "
            "Literal TypeVar Generic cast overload Final ClassVar Protocol Annotated Self Never "
            "NoReturn DefaultDict Counter Deque Type Awaitable Coroutine AsyncIterator "
            "AsyncIterable AsyncGenerator"
        ),
    ),
    "types": (
        "SimpleNamespace (a plain attribute bag cells may write) and read-only mapping views; "
        "not FunctionType/CodeType, which build code from raw parts",
        _S("SimpleNamespace MappingProxyType"),
    ),
    "textwrap": ("pure text functions", _S("wrap fill dedent indent shorten TextWrapper")),
    "difflib": (
        "sequence comparison on data the cell holds",
        _S("SequenceMatcher Differ get_close_matches ndiff unified_diff context_diff restore"),
    ),
    "heapq": (
        "list algorithms",
        _S("heappush heappop heapify heapreplace heappushpop nlargest nsmallest merge"),
    ),
    "bisect": (
        "list algorithms",
        _S("bisect bisect_left bisect_right insort insort_left insort_right"),
    ),
    "graphlib": ("topological sorting of data the cell holds", _S("TopologicalSorter CycleError")),
    "enum": (
        "enumerations (class definitions go through the class-body checks)",
        _S("Enum IntEnum Flag IntFlag StrEnum auto unique"),
    ),
    "copy": ("copies of objects the cell holds", _S("copy deepcopy Error")),
    "operator": (
        "operator functions; attrgetter/methodcaller are not exposed (the real getattr)",
        _S(
            "itemgetter add sub mul truediv floordiv mod pow neg pos abs eq ne lt le gt ge not_ "
            "truth and_ or_ xor contains countOf indexOf concat iadd"
        ),
    ),
    "uuid": ("random UUIDs (uuid1 would read the host's MAC address)", _S("uuid4 UUID")),
    "hashlib": ("hashes of bytes", _S("md5 sha1 sha256 sha512 blake2b")),
    "base64": (
        "encodings of bytes",
        _S("b64encode b64decode urlsafe_b64encode urlsafe_b64decode b32encode b16encode"),
    ),
    "binascii": ("encodings of bytes", _S("hexlify unhexlify crc32 Error")),
    "struct": (
        "packing values into bytes the cell holds",
        _S("pack unpack unpack_from iter_unpack calcsize Struct error"),
    ),
    "html": ("escaping text", _S("escape unescape")),
    "shlex": (
        "splitting and quoting strings (no shlex class reading streams)",
        _S("split quote join"),
    ),
    "fnmatch": (
        "shell-style pattern matching on strings",
        _S("fnmatch fnmatchcase filter translate"),
    ),
    "keyword": ("the keyword list", _S("iskeyword issoftkeyword kwlist softkwlist")),
    "colorsys": (
        "pure colour conversions",
        _S("rgb_to_hsv hsv_to_rgb rgb_to_hls hls_to_rgb rgb_to_yiq yiq_to_rgb"),
    ),
    "pprint": (
        "per session: pformat, and pprint printing to the cell's stdout",
        _S("pformat pprint"),
    ),
    "unicodedata": (
        "character database lookups",
        _S("name lookup category normalize numeric decimal digit"),
    ),
    "stat": (
        "constants and predicates on mode integers (no file access)",
        [n for n in dir(_stat) if not n.startswith("_")],
    ),
    "contextlib": (
        "contextmanager, closing, nullcontext and friends; suppress and ExitStack are wrapped so "
        "that a cell's deadline still stops the cell after their __exit__ swallowed it; "
        "redirect_stdout/redirect_stderr (they rebind the interpreter's real sys.stdout) and "
        "chdir (the process's working directory) are not exposed",
        _S(
            "contextmanager asynccontextmanager closing aclosing nullcontext suppress ExitStack "
            "AsyncExitStack AbstractContextManager AbstractAsyncContextManager "
            "ContextDecorator AsyncContextDecorator"
        ),
    ),
    "queue": (
        "wrapped: Queue, LifoQueue, PriorityQueue, SimpleQueue keep their items in a queue the "
        "cell cannot reach (no mutex or condition objects), and blocking get/put/join wait in "
        "slices so the cell's deadline applies",
        _S("Queue LifoQueue PriorityQueue SimpleQueue Empty Full"),
    ),
    "warnings": (
        "per session: filters, once-registries and catch_warnings(record=True) are the "
        "session's own, warnings go to the cell's stderr; the module is read-only, so "
        "showwarning cannot be replaced by a hook (the interpreter's own warnings module, "
        "shared by the process, is never touched)",
        _S(
            "warn simplefilter filterwarnings resetwarnings catch_warnings formatwarning "
            "showwarning WarningMessage"
        ),
    ),
    "asyncio": (
        "per session: run (on the session's own loop), sleep, gather, wait_for, timeout, "
        "create_task, TaskGroup, queues, events, locks; to_thread calls the function in the "
        "loop's thread; no loop objects (get_event_loop, get_loop), subprocesses, sockets, "
        "servers, threads or loop policies",
        ["run", "to_thread", *ASYNCIO_NAMES],
    ),
}

#: The default allow-list: module → public attributes the sandbox may use.
STDLIB_ALLOWED: dict[str, list[str]] = {name: attrs for name, (_note, attrs) in REVIEWED.items()}

#: Standard-library modules that hand out the host, with what to use instead.
HOST_MODULES: dict[str, str] = {
    "os": "open() on relative paths reads and writes files in the working directory",
    "posix": "open() on relative paths reads and writes files in the working directory",
    "nt": "open() on relative paths reads and writes files in the working directory",
    "sys": "the sandbox's own `import sys` gives sys.stdout, sys.version and friends",
    "builtins": "the sandbox's builtins are already there",
    "importlib": "import the allowed modules directly",
    "subprocess": "give the agent a tool (a Python function) that runs the command on the host",
    "_posixsubprocess": "give the agent a tool that runs the command on the host",
    "multiprocessing": "give the agent a tool, or use the Docker backend",
    "concurrent": "give the agent a tool, or use the Docker backend",
    "threading": "cells run one at a time; give the agent a tool for parallel work",
    "_thread": "cells run one at a time; give the agent a tool for parallel work",
    "ctypes": "native code is never loaded by cells; wrap it in a tool",
    "socket": "give the agent a tool that makes the request on the host",
    "ssl": "give the agent a tool that makes the request on the host",
    "http": "give the agent a tool that makes the request on the host",
    "urllib": "give the agent a tool that makes the request on the host",
    "shutil": "open() on relative paths; upload()/download() move files in and out",
    "pathlib": "open() on relative paths; upload()/download() move files in and out",
    "tempfile": "write to a relative path in the working directory",
    "glob": "upload()/download(), or a tool that lists files",
    "pty": "give the agent a tool",
    "signal": "deadlines are the executor's `timeout`",
    "resource": "limits are the executor's options (memory_limit_mb, cpu_limit_s...)",
    "gc": "nothing: the collector's object lists reach the host's objects",
    "inspect": "nothing: frames and code objects reach the host",
    "pickle": "json (allowed) for data; pickle runs code when loading",
    "marshal": "json (allowed) for data",
    "code": "cells are already code",
    "runpy": "cells are already code",
    "pkgutil": "import the allowed modules directly",
    "zipimport": "import the allowed modules directly",
    "mmap": "open() on relative paths",
    "fcntl": "open() on relative paths",
    "select": "give the agent a tool",
    "selectors": "give the agent a tool",
    "platform": "sys.version and sys.platform (allowed) describe the interpreter",
    "webbrowser": "give the agent a tool",
    "faulthandler": "nothing: it writes to host file descriptors",
}
