"""pandas' string-evaluating and name-dispatching methods, kept behind the guards.

``pd.eval``, ``DataFrame.eval`` and ``DataFrame.query`` parse an expression and read its
attributes with the real ``getattr`` (``x.__class__.__mro__``), resolve ``@names`` from whatever
frame ``level=`` points at (the host's), and hand back whatever they resolved. ``agg``,
``aggregate``, ``apply`` and ``transform`` given a string call ``getattr(obj, name)(...)`` with it
(``s.agg('__reduce_ex__', 0, 2)``). Here each is wrapped: expressions may use columns, ``@``
locals of the calling cell, literals, operators, pandas' math functions and public attributes
the cell could read itself; method names must be public and not themselves evaluators.
"""

from __future__ import annotations

import io
import sys
import tokenize
import types
import unicodedata
from collections.abc import Callable
from typing import Any

from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from codeact.executors.restricted._guards import METHOD_GUARDS, PolicyError, check_value
from codeact.executors.restricted._policy import RUNTIME_ATTRS

#: Methods whose string arguments are evaluated or dispatched on (compiled as runtime reads).
EVAL_METHODS = frozenset({"eval", "query"})
DISPATCH_METHODS = frozenset({"agg", "aggregate", "apply", "transform"})
#: Packages whose ``eval``/``query`` have no safe wrapper here: refused outright.
OTHER_EVAL_PACKAGES = frozenset({"numpy", "numexpr", "polars"})
#: Options of pd.eval / DataFrame.eval / DataFrame.query a cell may pass (never ``level``: it
#: picks the frame whose variables ``@names`` resolve from, up into the host).
EVAL_OPTIONS = frozenset(
    {"parser", "engine", "local_dict", "global_dict", "resolvers", "target", "inplace"}
)
_PARSERS = ("pandas", "python")
_ENGINES = (None, "python", "numexpr")
_SKIP = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)


def _refuse(expr: str, why: str) -> PolicyError:
    return PolicyError(f"expression {expr[:80]!r} refused in the sandbox: {why}")


def public_name(name: str) -> bool:
    """A name the sandbox lets a string reach: not private, not an inspector or evaluator."""
    return not (name.startswith("_") or name in INSPECT_ATTRIBUTES or name in RUNTIME_ATTRS)


def check_expression(expr: Any) -> str:
    """Refuse a pandas expression that reads a private, special or evaluating attribute, names
    a private variable, or holds an f-string or lambda. Tokens are read as pandas reads them
    (Python's tokenizer; backtick-quoted column names are opaque; identifiers NFKC-normalised as
    the parser does)."""
    if type(expr) is not str:
        raise TypeError(f"expr must be a string, not {type(expr).__name__}")
    after_dot = False
    in_backticks = False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(expr).readline):
            if tok.string == "`":
                in_backticks = not in_backticks
                continue
            if in_backticks or tok.type in _SKIP or tok.type == tokenize.ENDMARKER:
                continue
            text = unicodedata.normalize("NFKC", tok.string)
            if after_dot:
                if tok.type != tokenize.NAME or not public_name(text):
                    raise _refuse(expr, f"attribute {text!r} is not readable here")
                after_dot = False
            elif tok.type == tokenize.OP and text in (".", "..."):
                after_dot = True
            elif tok.type == tokenize.NAME and (text.startswith("_") or text == "lambda"):
                raise _refuse(expr, f"name {text!r} is not available")
            elif tok.type == _FSTRING_START or (
                tok.type == tokenize.STRING and "f" in text.split(text[-1])[0].lower()
            ):
                raise _refuse(expr, "f-strings are not evaluated")
            elif tok.type == tokenize.ERRORTOKEN and text.strip():
                raise _refuse(expr, f"unexpected {text!r}")
    except tokenize.TokenError as exc:
        raise SyntaxError(f"invalid expression {expr[:80]!r}: {exc.args[0]}") from None
    if after_dot:
        raise _refuse(expr, "it ends with '.'")
    return expr


def _check_options(kwargs: dict[str, Any]) -> None:
    unknown = sorted(set(kwargs) - EVAL_OPTIONS)
    if unknown:
        raise PolicyError(
            f"option(s) {', '.join(unknown)} of eval()/query() are not available in the sandbox "
            f"(allowed: {', '.join(sorted(EVAL_OPTIONS))})"
        )
    if kwargs.get("parser", "pandas") not in _PARSERS:
        raise PolicyError(f"parser must be one of {_PARSERS}")
    if kwargs.get("engine") not in _ENGINES:
        raise PolicyError(f"engine must be one of {_ENGINES}")


def _cell_scope(kwargs: dict[str, Any]) -> None:
    """Give pandas the calling cell's variables for ``@names`` (never another frame's)."""
    if "local_dict" in kwargs and "global_dict" in kwargs:
        return
    frame = sys._getframe(2)
    if frame.f_code.co_filename.startswith("<cell-"):
        local, glob = dict(frame.f_locals), frame.f_globals
    else:  # called through host code (map, np.vectorize...): no frame is offered
        local, glob = {}, {}
    kwargs.setdefault("local_dict", local)
    kwargs.setdefault("global_dict", glob)


def safe_eval(fn: Callable[..., Any], *, unbound: bool = False) -> Callable[..., Any]:
    """``fn`` (``pd.eval`` or ``DataFrame.eval``/``query``) behind the expression check; options
    by keyword only, ``@names`` from the calling cell, the result checked like any value."""

    def evaluate(*args: Any, **kwargs: Any) -> Any:
        owner, args = (args[:1], args[1:]) if unbound else ((), args)
        if len(args) != 1:
            raise PolicyError("eval()/query() take the expression, then options by keyword")
        check_expression(args[0])
        _check_options(kwargs)
        _cell_scope(kwargs)
        return check_value(fn(*owner, args[0], **kwargs))

    evaluate.__name__ = getattr(fn, "__name__", "eval")
    evaluate.__doc__ = getattr(fn, "__doc__", None)
    return evaluate


def _check_func_names(value: Any, depth: int = 0) -> None:
    if depth > 8:
        raise PolicyError("function specification nested too deeply")
    if isinstance(value, str):
        if not public_name(value):
            raise PolicyError(
                f"method name {value!r} cannot be dispatched on in the sandbox (private, "
                "special or evaluating names are refused)"
            )
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check_func_names(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            _check_func_names(item, depth + 1)


def safe_dispatch(fn: Callable[..., Any], *, unbound: bool = False) -> Callable[..., Any]:
    """``agg``/``apply``/``transform`` whose function argument (and named aggregations) may
    name only public, non-evaluating methods."""

    def dispatch(*args: Any, **kwargs: Any) -> Any:
        rest = args[1:] if unbound else args
        if rest:
            _check_func_names(rest[0])
        for key in ("func", "arg"):
            if key in kwargs:
                _check_func_names(kwargs[key])
        for value in kwargs.values():  # named aggregation: col=('b', 'sum')
            if isinstance(value, tuple):
                _check_func_names(value)
        return fn(*args, **kwargs)

    dispatch.__name__ = getattr(fn, "__name__", "apply")
    dispatch.__doc__ = getattr(fn, "__doc__", None)
    return dispatch


def _pandas_function(value: Any) -> tuple[Any, bool] | None:
    """(function, unbound) when ``value`` is a pandas-defined method, else None."""
    if isinstance(value, types.MethodType):
        fn, unbound = value.__func__, False
    elif isinstance(value, types.FunctionType):
        fn, unbound = value, True
    else:
        return None
    module = fn.__module__
    if type(module) is str and module.split(".")[0] == "pandas":
        return fn, unbound
    return None


def _guard_eval(obj: Any, name: str, value: Any) -> Any:
    found = _pandas_function(value)
    if found is not None:
        return safe_eval(value, unbound=found[1])
    owner = obj if isinstance(obj, type) else type(obj)
    if owner.__module__.split(".")[0] in OTHER_EVAL_PACKAGES:
        raise PolicyError(f"{name}() evaluates strings and is not available in the sandbox")
    return value


def _guard_dispatch(obj: Any, name: str, value: Any) -> Any:
    found = _pandas_function(value)
    return value if found is None else safe_dispatch(value, unbound=found[1])


for _name in EVAL_METHODS:
    METHOD_GUARDS[_name] = _guard_eval
for _name in DISPATCH_METHODS:
    METHOD_GUARDS[_name] = _guard_dispatch
