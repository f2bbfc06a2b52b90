"""Run-time guards called by compiled cells: attribute reads and writes, size limits, markers
(the cell's deadline is ``_deadline``'s, the size-checked builtin types ``_standins``').

Everything here runs on every guarded operation, so the common paths are kept short.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]
import builtins
import string
import types
from collections.abc import Callable
from typing import Any

from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from codeact.executors.restricted._policy import SAFE_DUNDERS
from codeact.executors.restricted._sizes import (
    PADDING_METHODS,
    check_format_spec,
    padding_method,
    plain_template,
)

#: Documented public APIs whose names start with one underscore (namedtuple).
PUBLIC_UNDERSCORE = frozenset({"_asdict", "_replace", "_fields", "_make", "_field_defaults"})

#: Builtins the sandbox must never obtain, whatever path it takes.
_DANGEROUS = [
    builtins.eval,
    builtins.exec,
    builtins.compile,
    builtins.open,
    builtins.__import__,
    builtins.getattr,
    builtins.setattr,
    builtins.delattr,
    builtins.globals,
    builtins.locals,
    builtins.vars,
    builtins.breakpoint,
    builtins.input,
    builtins.memoryview,
]
DANGEROUS_IDS = frozenset(id(x) for x in _DANGEROUS)


class PolicyError(RuntimeError):
    """Raised inside the sandbox when the code tries something the policy refuses."""


class FinalAnswerSignal(BaseException):
    """Raised by ``final_answer(value)`` to stop the cell after recording the value."""


#: Every class the sandbox defined (strong references: classes are few and long-lived).
SANDBOX_CLASSES: set[type] = set()


def sandbox_class(cls: Any) -> Any:
    """Decorator the policy puts on every class the sandbox defines: marks it as sandbox-made."""
    if isinstance(cls, type):
        if issubclass(cls, type):
            raise PolicyError("metaclasses cannot be defined in the sandbox")
        _check_slots(cls)
        _check_bases(cls)
        SANDBOX_CLASSES.add(cls)
    return cls


#: Modules whose classes the host's event loop calls back into, and whose instances hold the
#: loop: a cell may not subclass them (an override of ``get_loop`` would run in host threads);
#: nor ``decimal``'s, whose constructors the sandbox bounds (a subclass would make unchecked
#: values: ``int()`` of ``Decimal('1e999999')`` is a minute in one uninterruptible call).
_NO_SUBCLASS_MODULES = ("asyncio", "_asyncio", "decimal")


def _check_bases(cls: type) -> None:
    """Refuse a class deriving from a host class of ``_NO_SUBCLASS_MODULES`` (their exceptions
    excepted): ``asyncio.Task``/``Future``/``Queue``/``Lock`` subclasses reach the loop, and
    ``Decimal``/``Context`` subclasses would skip the sandbox's bounds."""
    for base in cls.__mro__[1:]:
        module = (getattr(base, "__module__", "") or "").split(".")[0]
        if module in _NO_SUBCLASS_MODULES and not issubclass(base, BaseException):
            raise PolicyError(f"{base.__name__} cannot be subclassed in the sandbox")


def _check_slots(cls: type) -> None:
    """``__slots__`` may name ordinary attributes (private ones are mangled and readable on the
    sandbox's own objects only) plus ``__dict__``/``__weakref__``; not other special names: a
    slot named ``__class__`` would let an instance lie about its type to isinstance. Checked on
    the descriptors the class got (``__slots__`` may have been an iterator, now spent)."""
    for name, value in vars(cls).items():
        if name.startswith("__") and isinstance(value, types.MemberDescriptorType):
            raise PolicyError(f"__slots__ cannot name the special attribute {name!r}")


def is_sandbox_object(obj: Any) -> bool:
    """True for classes defined by sandbox code and their instances."""
    if type(obj) in SANDBOX_CLASSES:
        return True
    return isinstance(obj, type) and obj in SANDBOX_CLASSES


#: Host base classes whose instances keep no private state of their own worth guarding: a
#: private attribute found in the instance's ``__dict__`` of a sandbox subclass is the cell's.
_PLAIN_BASE_MODULES = frozenset(
    {
        "builtins",
        "abc",
        "typing",
        "collections",
        "collections.abc",
        "_collections_abc",
        "enum",
        "numbers",
        "types",
    }
)


def private_readable(obj: Any, name: str) -> bool:
    """A private ``name`` is readable on ``obj`` only where the cell defined it: ``obj`` is a
    sandbox class or instance, and the class of its MRO that defines ``name`` is a sandbox
    class. Not found on any class (an instance attribute): every host base must be a plain
    one (``_PLAIN_BASE_MODULES``) or an exception, so a host base's own ``self._loop`` stays
    hidden from a subclass the cell defined."""
    if not is_sandbox_object(obj):
        return False
    mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    for klass in mro:
        if name in klass.__dict__:
            return klass in SANDBOX_CLASSES
    for klass in mro:
        if klass in SANDBOX_CLASSES or klass.__module__ in _PLAIN_BASE_MODULES:
            continue
        if not issubclass(klass, BaseException):
            return False
    return True


def _readable_dunder(obj: Any, name: str) -> bool:
    """``__annotations__`` on what the cell itself defined; exception chains on exceptions."""
    if name in ("__cause__", "__context__", "__suppress_context__"):
        return isinstance(obj, BaseException)
    if name == "__slots__":
        return is_sandbox_object(obj)
    if name == "__annotations__":
        if is_sandbox_object(obj):
            return True
        return isinstance(obj, types.FunctionType) and obj.__module__ == "__main__"
    return False


def check_attr_name(obj: Any, name: Any) -> str:
    """Refuse attribute names the sandbox may not read on ``obj``; return the name."""
    if type(name) is not str:
        raise TypeError(f"attribute name must be a string, not {type(name).__name__}")
    if name.startswith("_"):
        if name.startswith("__"):
            if name in SAFE_DUNDERS or _readable_dunder(obj, name):
                return name
        elif name in PUBLIC_UNDERSCORE or private_readable(obj, name):
            return name
        raise AttributeError(
            f"access to attribute {name!r} is not allowed in the sandbox "
            f"(private and special attributes are only readable on objects the code created)"
        )
    if name in INSPECT_ATTRIBUTES:
        raise AttributeError(f"access to attribute {name!r} is not allowed in the sandbox")
    return name


def check_value(value: Any) -> Any:
    """Refuse values that would hand the sandbox a real module or a dangerous builtin."""
    if isinstance(value, types.ModuleType):
        raise PolicyError(
            f"module {value.__name__!r} is not available here; import an allowed module instead"
        )
    if id(value) in DANGEROUS_IDS:
        raise PolicyError(f"{getattr(value, '__name__', 'this builtin')}() is not available")
    return value


class _GuardedFormatter(string.Formatter):
    """``str.format`` whose field lookups obey the sandbox's attribute rules."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            obj = guarded_getattr(obj, key) if is_attr else obj[key]
        return obj, first

    def format_field(self, value: Any, format_spec: str) -> Any:
        return format(value, check_format_spec(format_spec))


_FORMATTER = _GuardedFormatter()


def safe_format(template: str, /, *args: Any, **kwargs: Any) -> str:
    """``template.format(*args, **kwargs)`` for the sandbox: plain templates (no attribute or
    index walks in their fields) go to the native method, the others through the guarded
    formatter; widths are checked either way."""
    if type(template) is str and plain_template(template):
        return template.format(*args, **kwargs)
    return _FORMATTER.vformat(template, args, kwargs)


def _safe_format_map(template: str, mapping: Any, /) -> str:
    if type(template) is str and plain_template(template):
        return template.format_map(mapping)
    return _FORMATTER.vformat(template, (), mapping)


def guarded_getattr(obj: Any, name: Any, *default: Any) -> Any:
    """``getattr`` for the sandbox (also what ``_getattr_`` and the ``getattr`` builtin call)."""
    check_attr_name(obj, name)
    if name in ("format", "format_map") and (
        isinstance(obj, str) or (isinstance(obj, type) and issubclass(obj, str))
    ):
        fn = safe_format if name == "format" else _safe_format_map
        return fn.__get__(obj) if isinstance(obj, str) else fn
    if name in PADDING_METHODS and isinstance(obj, (str, bytes, bytearray)):
        return padding_method(obj, name)
    if name == "obj" and isinstance(obj, AttributeError):
        return None  # AttributeError.obj could carry an object the guards refused
    if name in ("__cause__", "__context__"):
        return chained_exception(getattr(obj, name))
    pre = PRE_GUARDS.get(name)
    if pre is not None:
        pre(obj, name)
    value = getattr(obj, name, *default)
    guard = METHOD_GUARDS.get(name)
    if guard is not None:
        value = guard(obj, name, value)
    return check_value(value)


#: Runtime guards for methods of data libraries that evaluate or dispatch on strings, by
#: attribute name (filled by ``_dataeval``/``_datalibs``): ``guard(obj, name, value)`` returns
#: the value to hand over (often a checking wrapper) or raises ``PolicyError``.
METHOD_GUARDS: dict[str, Callable[[Any, str, Any], Any]] = {}
#: Checks run before the attribute is read (its getter may itself do the harm), by name.
PRE_GUARDS: dict[str, Callable[[Any, str], None]] = {}


_PLAIN_ARGS = (str, int, float, bool, bytes, type(None))


def chained_exception(exc: Any) -> Any:
    """``e.__cause__``/``e.__context__`` for the sandbox. An exception the cell raised, or one
    that holds only plain values (``ValueError('invalid literal ...')``), is handed over as it
    is; one that holds other objects (host code could chain an exception carrying its own
    state) arrives as a ``RuntimeError`` naming it, and internal signals not at all."""
    if exc is None or type(exc) in SANDBOX_CLASSES:
        return exc
    if not isinstance(exc, Exception):
        return None  # timeouts, final_answer, KeyboardInterrupt: internal to the runner
    if all(isinstance(a, _PLAIN_ARGS) for a in exc.args):
        return exc
    return RuntimeError(f"{type(exc).__name__} (details withheld by the sandbox)")


def guarded_hasattr(obj: Any, name: Any) -> bool:
    """``hasattr`` for the sandbox: refused names read as absent."""
    try:
        guarded_getattr(obj, name)
    except (AttributeError, PolicyError):
        return False
    return True


_WRITABLE_CONTAINERS = (list, dict, set, bytearray)


#: Types whose instances the sandbox may configure (``localcontext() as c: c.prec = 3``; the
#: guarded ``pd.options`` registers here).
WRITABLE_TYPES: set[type] = set()
#: Types whose attribute writes go through a wrapper that checks the values (a decimal
#: context's bounds: ``_stdwrap``), by type.
WRITE_WRAPPERS: dict[type, Callable[[Any], Any]] = {}
#: Hooks giving the stand-in the sandbox sees for a real class (``type(x)``, class attributes):
#: each returns the class itself when it has none (numpy's array classes register here).
TYPE_STANDINS: list[Callable[[type], Any]] = []
#: Types whose instances are read-only for the sandbox (module proxies register here).
READ_ONLY_TYPES: list[type] = []


WriteGuard = Callable[[Any], Any]


def make_write_guard(writable_packages: frozenset[str] = frozenset()) -> WriteGuard:
    """The ``_write_`` hook of one session: what ``obj.attr = value`` writes through.

    Sandbox objects (and exceptions) always; instances of the session's opted-in packages
    (``df.columns = [...]``); never modules, classes or callables. Each session gets its own, so
    opting a package in changes nothing for another session."""

    def guarded_write(obj: Any) -> Any:
        if type(obj) in SANDBOX_CLASSES:  # the hot path: ``self.x = ...`` in a sandbox method
            return obj
        if is_sandbox_object(obj) or isinstance(obj, BaseException):  # ``e.note = 1``
            return obj
        if isinstance(obj, tuple(READ_ONLY_TYPES)):
            raise PolicyError("modules are read-only in the sandbox")
        if type(obj) in WRITABLE_TYPES:
            return obj
        wrapper = WRITE_WRAPPERS.get(type(obj))
        if wrapper is not None:
            return wrapper(obj)
        if isinstance(obj, (type, types.ModuleType)) or callable(obj):
            raise PolicyError(f"cannot set attributes on {_describe(obj)} in the sandbox")
        if type(obj).__module__.split(".")[0] in writable_packages:
            return obj
        raise PolicyError(f"cannot set attributes on {_describe(obj)} in the sandbox")

    return guarded_write


def make_setattr(write: WriteGuard) -> tuple[Callable[..., None], Callable[..., None]]:
    """The session's ``setattr`` and ``delattr`` builtins, writing through ``write``."""

    def guarded_setattr(obj: Any, name: Any, value: Any) -> None:
        """``setattr`` for the sandbox."""
        if type(name) is not str or name.startswith("__"):
            raise AttributeError(f"cannot set attribute {name!r} in the sandbox")
        if name.startswith("_") and not private_readable(obj, name):
            raise AttributeError(f"cannot set attribute {name!r} in the sandbox")
        setattr(write(obj), name, value)

    def guarded_delattr(obj: Any, name: Any) -> None:
        """``delattr`` for the sandbox."""
        if type(name) is not str or name.startswith("__"):
            raise AttributeError(f"cannot delete attribute {name!r} in the sandbox")
        if name.startswith("_") and not private_readable(obj, name):
            raise AttributeError(f"cannot delete attribute {name!r} in the sandbox")
        delattr(write(obj), name)

    return guarded_setattr, guarded_delattr


def _describe(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__!r}"
    if isinstance(obj, type):
        return f"class {obj.__name__!r}"
    return f"{type(obj).__name__!r} objects"
