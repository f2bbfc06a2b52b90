"""Models by name: ``infer_llm("openai:gpt-4o-mini")``, ``infer_llm("local")``, and so on.

A model spec is a string::

    local                   the embedded model (LocalLLM), found as its docs say
    local:PATH              the embedded runtime with this GGUF file
    scripted:PATH           ScriptedLLM replaying the JSON list of replies in PATH (tests)
    openai:MODEL            MODEL behind an OpenAI-compatible API (OpenAILike); the endpoint
                            and key come from OPENAI_BASE_URL / OPENAI_API_KEY or options
    MODEL                   a bare name (no ':'): the same as openai:MODEL
    PROVIDER:MODEL          a provider registered in the entry-point group ``codeact.llms``
    ...@http(s)://HOST/...  any of the above followed by ``@`` and a URL sets the option
                            ``base_url``, e.g. ``openai:qwen2.5-coder:7b@http://127.0.0.1:11434/v1``

The provider is the text before the first ``:`` (case-insensitive); the model is everything after
it, colons included (``openai:llama3:8b``). A model name that contains ``:`` therefore needs its
provider spelled out.

Third-party adapters register an entry point whose object is called as
``factory(model, **options)`` and returns an ``LLM`` (an ``LLM`` subclass taking the model name
first works as is)::

    [project.entry-points."codeact.llms"]
    anthropic = "my_package.llms:AnthropicLLM"

Built-in provider names win over entry points with the same name.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from codeact._plugins import find_plugin, load_target, plugin_names
from codeact.errors import UserError
from codeact.llms.base import LLM

#: Called as ``factory(model, **options)``; returns the adapter.
LLMFactory = Callable[..., LLM]
#: Receives human-readable status lines (model download, loading).
Progress = Callable[[str], None]
ENTRY_POINT_GROUP = "codeact.llms"

_BUILTIN = {
    "local": "codeact.llms.local:LocalLLM",
    "openai": "codeact.llms.openai_like:OpenAILike",
    "scripted": "codeact.llms._infer:scripted_from_file",
}
_URL_SUFFIX = re.compile(r"^(?P<rest>.+?)@(?P<url>https?://\S+)$")
_PROVIDER = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


class LLMSpec(NamedTuple):
    """A model spec taken apart: ``parse_llm_spec("openai:m@http://h/v1")``."""

    provider: str
    model: str
    base_url: str | None = None


def parse_llm_spec(spec: str) -> LLMSpec:
    """Split a model spec into provider, model and base URL (see the module docstring).

    Only the form is checked here; ``infer_llm`` checks that the provider exists.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise UserError(
            f"A model spec must be a non-empty string such as 'local', 'openai:gpt-4o-mini' or "
            f"'scripted:replies.json', not {spec!r}"
        )
    text, base_url = spec.strip(), None
    match = _URL_SUFFIX.match(text)
    if match:
        text, base_url = match["rest"], match["url"]
    provider, sep, model = text.partition(":")
    if not sep:
        return (
            LLMSpec("local", "", base_url) if text == "local" else LLMSpec("openai", text, base_url)
        )
    provider = provider.lower()
    if provider in ("http", "https"):
        raise UserError(
            f"{spec!r} is a URL, not a model spec: name the model and put the URL after '@', "
            f"e.g. 'openai:gpt-4o-mini@{text}'"
        )
    if not _PROVIDER.match(provider):
        raise UserError(
            f"Bad provider name {provider!r} in model spec {spec!r}: expected PROVIDER:MODEL "
            f"with a name of letters, digits, '_', '.' or '-' before the ':'"
        )
    return LLMSpec(provider, model, base_url)


def llm_providers() -> list[str]:
    """The provider names ``infer_llm`` knows: the built-in ones and the entry points."""
    return sorted({name.lower() for name in plugin_names(ENTRY_POINT_GROUP, _BUILTIN)})


def infer_llm(spec: str | LLM, /, *, progress: Progress | None = None, **options: Any) -> LLM:
    """The LLM a model spec names, e.g. ``infer_llm("openai:gpt-4o-mini", temperature=0)``.

    ``spec`` follows the grammar in this module's docstring; an ``LLM`` instance is returned as
    it is (so callers can take "a model or its name"). ``options`` go to the provider's
    constructor (for ``openai``: ``OpenAILike``'s ``base_url``, ``api_key``, ``timeout``, ...;
    for ``local``: ``LocalLLM``'s ``n_ctx``, ``threads``, ...); options that are ``None`` count as
    not given, so a caller can pass its settings unconditionally. ``progress`` receives status
    lines and is passed on only to providers that take a ``progress`` argument.

    Nothing is opened or loaded here: each call returns a new adapter that connects or loads on
    first use, so it may be called once per process (and the LLM shared) or once per task
    (each closed with ``aclose()``). Raises ``UserError`` for a malformed spec, an unknown
    provider (naming the known ones) or an option the provider does not take.
    """
    if isinstance(spec, LLM):
        if options:
            raise UserError(f"Options {sorted(options)} apply to a model spec, not to an LLM")
        return spec
    parsed = parse_llm_spec(spec)
    given = {k: v for k, v in options.items() if v is not None}
    if parsed.base_url is not None:
        if "base_url" in given:
            raise UserError(f"Model spec {spec!r} has a base URL and base_url= was passed too")
        given["base_url"] = parsed.base_url
    factory = _factory(parsed.provider, spec)
    params = _parameters(factory)
    if progress is not None and (params is None or "progress" in params):
        given["progress"] = progress
    _check_options(parsed.provider, params, given)
    llm = factory(parsed.model, **given)
    if not isinstance(llm, LLM):
        raise UserError(
            f"Provider {parsed.provider!r} returned {type(llm).__name__}, not a codeact LLM"
        )
    return llm


def _factory(provider: str, spec: str) -> LLMFactory:
    """The provider's factory (built-in names win over entry points: ``codeact._plugins``)."""
    target = find_plugin(ENTRY_POINT_GROUP, provider, _BUILTIN)
    if target is None:  # entry points registered with capitals still match
        names = {name.lower(): name for name in plugin_names(ENTRY_POINT_GROUP, _BUILTIN)}
        if provider in names:
            target = find_plugin(ENTRY_POINT_GROUP, names[provider], _BUILTIN)
    if target is None:
        hint = f" A model name containing ':' is written 'openai:{spec}'." if ":" in spec else ""
        raise UserError(
            f"Unknown model provider {provider!r} in {spec!r}. Known providers: "
            f"{', '.join(llm_providers())}. Third-party adapters register an entry point in "
            f"the group '{ENTRY_POINT_GROUP}'.{hint}"
        )
    factory = load_target(target, f"Model provider {provider!r}")
    if not callable(factory):
        raise UserError(f"Model provider {provider!r} is {factory!r}, which is not callable")
    return factory  # type: ignore[no-any-return]


def _parameters(factory: LLMFactory) -> set[str] | None:
    """The keyword options a factory takes, or None when it takes any (``**kwargs``)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    names = set()
    for i, p in enumerate(sig.parameters.values()):
        if p.kind is p.VAR_KEYWORD:
            return None
        if i > 0 and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            names.add(p.name)
    return names


def _check_options(provider: str, params: set[str] | None, given: dict[str, Any]) -> None:
    if params is None:
        return
    unknown = sorted(set(given) - params)
    if unknown:
        raise UserError(
            f"Model provider {provider!r} does not take the option(s) {', '.join(unknown)}; "
            f"it takes: {', '.join(sorted(params)) or 'none'}"
        )


def scripted_from_file(
    path: str, *, function_calling: bool = False, model_name: str | None = None
) -> LLM:
    """The ``scripted:PATH`` provider: a ``ScriptedLLM`` replaying the replies in a JSON file.

    The file holds a list whose items are reply texts or objects with ``Reply`` fields
    (``{"text": "...", "delay": 0.5}``). Text replies suit ``CodeActAgent``/``ReActAgent``, hence
    ``function_calling=False`` by default.
    """
    from codeact.llms.testing import Reply, ScriptedLLM

    if not path:
        raise UserError("The scripted provider needs a file: 'scripted:replies.json'")
    file = Path(path)
    try:
        replies = json.loads(file.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"Cannot read scripted replies from {file}: {exc}") from exc
    if not isinstance(replies, list):
        raise UserError(f"Cannot read scripted replies from {file}: expected a JSON list")
    try:
        specs = [r if isinstance(r, str) else Reply.model_validate(r) for r in replies]
    except ValueError as exc:
        raise UserError(f"Cannot read scripted replies from {file}: {exc}") from exc
    return ScriptedLLM(
        specs, function_calling=function_calling, model_name=model_name or f"scripted:{file.name}"
    )


__all__ = [
    "ENTRY_POINT_GROUP",
    "LLMFactory",
    "LLMSpec",
    "Progress",
    "infer_llm",
    "llm_providers",
    "parse_llm_spec",
    "scripted_from_file",
]
