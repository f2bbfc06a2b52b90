"""OpenAILike: any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp, LM Studio...).

Built on the official ``openai`` SDK (the ``openai`` extra), imported only when used.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from codeact._messages import BinaryPart, ChatMessage, TextPart
from codeact.errors import LLMError, UserError
from codeact.llms.base import (
    LLM,
    ChatDelta,
    LLMMetadata,
    ToolCallDelta,
    ToolChoice,
    sampling_options,
)
from codeact.tools import ToolMetadata

if TYPE_CHECKING:
    from openai import AsyncOpenAI


def to_openai_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Our messages in the OpenAI chat format."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.text})
            continue
        msg: dict[str, Any] = {"role": m.role}
        if isinstance(m.content, str) or m.role != "user":
            msg["content"] = m.text if (m.text or not m.tool_calls) else None
        else:
            msg["content"] = [_part(p) for p in m.content]
        if m.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in m.tool_calls
            ]
        if m.name and m.role != "assistant":
            msg["name"] = m.name
        out.append(msg)
    return out


def _part(part: TextPart | BinaryPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    url = part.url or f"data:{part.mime_type};base64,{part.data}"
    if part.is_image:
        return {"type": "image_url", "image_url": {"url": url}}
    if part.data is not None:
        file: dict[str, Any] = {"file_data": url}
        if part.filename:
            file["filename"] = part.filename
        return {"type": "file", "file": file}
    return {"type": "text", "text": f"[file {part.filename or ''} at {part.url}]"}


def _tool_choice(choice: ToolChoice | None) -> Any:
    if choice is None or choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


class OpenAILike(LLM):
    """A chat model behind an OpenAI-compatible HTTP API.

    Arguments default to the environment: ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and
    ``CODEACT_MODEL``. The SDK retries 429, 5xx and connection errors with exponential backoff
    (``max_retries``); ``timeout`` bounds each request. Failures raise ``LLMError`` with the
    original exception as ``__cause__``.

    Connections: by default the adapter owns its HTTP client, opened on first use in each event
    loop (connections belong to the loop that opened them) and closed by ``aclose()`` or at the
    end of ``async with``. An ``http_client`` you pass (an ``httpx.AsyncClient``, or
    ``httpx2.AsyncClient`` for SDKs built on it) is borrowed: used in every loop, never closed.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        function_calling: bool = True,
        timeout: float = 120.0,
        max_retries: int = 3,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        context_window: int = 32_768,
        http_client: Any = None,
    ) -> None:
        self.model = model or os.environ.get("CODEACT_MODEL") or ""
        if not self.model:
            raise UserError(
                "No model name: pass model=... or set CODEACT_MODEL "
                "(e.g. CODEACT_MODEL=gpt-4o-mini)"
            )
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = extra_body
        self._meta = LLMMetadata(
            model_name=self.model,
            is_function_calling_model=function_calling,
            context_window=context_window,
        )
        self._borrowed_http = http_client
        self._client: AsyncOpenAI | None = None
        self._loop: object | None = None

    @property
    def metadata(self) -> LLMMetadata:
        return self._meta

    def client(self) -> AsyncOpenAI:
        """The SDK client for the running event loop (opened on first use in each loop)."""
        import asyncio

        loop = asyncio.get_running_loop()
        if self._client is not None and self._borrowed_http is None and self._loop is not loop:
            # The loop that opened these connections has ended or is another thread's: they
            # cannot be closed from here, so the client is let go and a new one opened.
            self._client = None
        if self._client is None:
            self._loop = loop
            try:
                from openai import AsyncOpenAI
            except ImportError as exc:
                raise UserError(
                    "OpenAILike needs the openai package: pip install 'codeact[openai]'"
                ) from exc
            self._client = AsyncOpenAI(
                base_url=self.base_url,
                api_key=self.api_key,
                timeout=self.timeout,
                max_retries=self.max_retries,
                http_client=self._borrowed_http or _http_client(self.timeout),
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP connections this adapter opened (a borrowed ``http_client`` stays
        open). Idempotent; the adapter opens a new client if it is used again."""
        import asyncio

        client, self._client = self._client, None
        if client is None or self._borrowed_http is not None:
            return
        try:
            current: object | None = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        if current is self._loop:
            await client.close()

    async def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None = None,
        tool_choice: ToolChoice | None = None,
    ) -> AsyncIterator[ChatDelta]:
        """Stream text, reasoning text and tool-call fragments (kept apart by index)."""
        import openai

        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(messages),
            "stream": True,
        }
        if tools:
            kwargs["tools"] = [t.to_openai() for t in tools]
            if tool_choice is not None:
                kwargs["tool_choice"] = _tool_choice(tool_choice)
        if self.temperature is not None:  # (a model left at its default stays there)
            kwargs["temperature"] = self.temperature
            kwargs.update(sampling_options())  # (``sampling``: this request only)
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        where = self.base_url or "the OpenAI API"
        try:
            stream = await self.client().chat.completions.create(**kwargs)
            async for chunk in stream:
                delta = _delta(chunk)
                if delta is not None:
                    yield delta
        except openai.APITimeoutError as exc:
            raise LLMError(f"The request to {where} timed out after {self.timeout:g} s") from exc
        except openai.APIConnectionError as exc:
            raise LLMError(
                f"Could not reach {where}: {exc}. Check OPENAI_BASE_URL and that the server runs."
            ) from exc
        except openai.AuthenticationError as exc:
            raise LLMError(f"{where} refused the API key (HTTP 401): set OPENAI_API_KEY") from exc
        except openai.APIStatusError as exc:
            raise LLMError(
                f"{where} answered HTTP {exc.status_code} for model {self.model!r}: {exc.message}"
            ) from exc
        except (openai.APIError, json.JSONDecodeError, ValueError) as exc:
            raise LLMError(f"{where} sent a malformed response: {exc}") from exc

    async def next_token_probabilities(
        self, messages: Sequence[ChatMessage], top: int = 10
    ) -> dict[str, float] | None:
        """The first reply token's ``top`` likeliest alternatives with their probabilities
        (``logprobs`` of one generated token at temperature 0); None when the server sends
        no log-probabilities or refuses them (an HTTP error)."""
        import math

        import openai

        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(messages),
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": top,
        }
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        try:
            resp = await self.client().chat.completions.create(**kwargs)
        except (openai.APIStatusError, ValueError):  # (incl. a body that is not JSON)
            return None  # (a server without log-probabilities may refuse the options)
        except openai.APIError as exc:
            where = self.base_url or "the OpenAI API"
            raise LLMError(
                f"Could not get token probabilities from {where}: {exc}. Check OPENAI_BASE_URL "
                "and that the server runs."
            ) from exc
        try:
            logprobs = resp.choices[0].logprobs if resp.choices else None
            first = logprobs.content[0] if logprobs and logprobs.content else None
            out: dict[str, float] = {}
            for t in (first.top_logprobs or [])[:top] if first is not None else []:
                if isinstance(t.logprob, int | float):  # (same text twice: added up)
                    out[str(t.token)] = out.get(str(t.token), 0.0) + math.exp(t.logprob)
        except (AttributeError, TypeError, ValueError, IndexError, KeyError):
            return None  # (a response not shaped as the API's: no probabilities)
        return out or None


def _delta(chunk: Any) -> ChatDelta | None:
    if not getattr(chunk, "choices", None):
        return None
    d = chunk.choices[0].delta
    if d is None:
        return None
    extra = getattr(d, "model_extra", None) or {}
    thinking = extra.get("reasoning_content") or extra.get("reasoning") or ""
    calls = [
        ToolCallDelta(
            index=tc.index or 0,
            id=tc.id,
            name=tc.function.name if tc.function else None,
            arguments=(tc.function.arguments or "") if tc.function else "",
        )
        for tc in (d.tool_calls or [])
    ]
    text = d.content or ""
    if not (text or thinking or calls):
        return None
    if not (thinking or calls):
        return ChatDelta.of_text(text)
    return ChatDelta(text=text, thinking=str(thinking), tool_calls=calls)


def _http_client(timeout: float) -> Any:
    """A plain HTTP client for the SDK. (The SDK's own wrapper schedules ``aclose`` on whatever
    event loop is running when it is garbage-collected, which fails for connections that
    belonged to a loop that has since ended.)"""
    try:
        import httpx2 as httpx  # what recent openai SDKs use
    except ImportError:
        import httpx  # type: ignore[no-redef, import-not-found, unused-ignore]
    return httpx.AsyncClient(timeout=timeout, follow_redirects=True)
