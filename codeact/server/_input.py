"""Reading AG-UI run requests: lenient about what front ends omit, strict about what is wrong."""

from __future__ import annotations

import base64
import binascii
import functools
import json
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from ag_ui.core import RunAgentInput
from pydantic import TypeAdapter, ValidationError

from codeact._messages import BinaryPart, ChatMessage, ContentPart, TextPart, ToolCallRequest
from codeact.errors import UserError
from codeact.server.translator import result_message_id

T = TypeVar("T")


class BadRequest(UserError):
    """A request the server refuses with a 4xx JSON error before any SSE is sent (the
    client's misuse, so a ``UserError``)."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        self.status = status
        self.message = message
        self.code = code
        super().__init__(message)

    def __reduce__(self) -> tuple[type[BadRequest], tuple[int, str, str | None]]:
        return (BadRequest, (self.status, self.message, self.code))  # (from a worker process)


def parse_run_input(body: bytes) -> RunAgentInput:
    """The body as a ``RunAgentInput``; minimal bodies and messages without ids are accepted."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise BadRequest(400, f"the body is not valid JSON: {exc}") from None
    return validate_run_input(data)


#: The list fields of a ``RunAgentInput`` validated one entry at a time.
LIST_FIELDS = ("messages", "tools", "context")
#: Entries accepted in each of them (``ServerConfig.max_messages`` overrides it).
MAX_ITEMS = 10_000


def validate_run_input(data: Any, max_items: int = MAX_ITEMS) -> RunAgentInput:
    """Parsed JSON as a ``RunAgentInput`` (ids minted for messages that have none).

    The list fields are counted first (413 past ``max_items`` entries, before any validation)
    and their entries validated one at a time: each validation is short, so a large body
    validated in a worker thread never holds the GIL for long (one ``model_validate`` of
    200,000 messages held it for 3.6 s and froze every other stream)."""
    if not isinstance(data, dict):
        raise BadRequest(400, "the body must be a JSON object (a RunAgentInput)")
    lists: dict[str, list[Any]] = {}
    for name in LIST_FIELDS:
        items = data.get(name)
        if isinstance(items, list):
            if len(items) > max_items:
                raise BadRequest(
                    413,
                    f"{name} has {len(items)} entries; this server accepts at most {max_items}",
                    "too_many_items",
                )
            lists[name] = items
    for m in lists.get("messages", []):
        if isinstance(m, dict):
            if not m.get("id"):
                m["id"] = f"in-{uuid.uuid4().hex[:12]}"
            if isinstance(m.get("content"), list):
                m["content"] = [_upgrade_binary(p) for p in m["content"]]
    shell = {k: v for k, v in data.items() if k not in lists} | {k: [] for k in lists}
    run_input = _validated(RunAgentInput.model_validate, shell, "")
    for name, items in lists.items():
        one = _adapter(name).validate_python
        setattr(
            run_input, name, [_validated(one, [x], f"{name}.{i}.")[0] for i, x in enumerate(items)]
        )
    return run_input


def _validated(validate: Callable[[Any], T], data: Any, where: str) -> T:
    try:
        return validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        loc = [str(p) for p in first["loc"]][1 if where else 0 :]  # (without the list index)
        at = where + ".".join(loc)
        raise BadRequest(
            422, f"invalid RunAgentInput at {at.rstrip('.')}: {first['msg']}"
        ) from None
    except (ValueError, RecursionError) as exc:  # a validator choking on hostile input
        raise BadRequest(400, f"invalid RunAgentInput: {str(exc)[:200]}") from None


@functools.cache
def _adapter(name: str) -> TypeAdapter[Any]:
    """Validates a one-entry list of the field ``name`` (its type, optional or not)."""
    annotation: Any = RunAgentInput.model_fields[name].annotation
    return TypeAdapter(annotation)


def _upgrade_binary(part: Any) -> Any:
    """A legacy ``{"type": "binary", ...}`` part as the 1.0 media part (as the 1.0 client does)."""
    if not (isinstance(part, dict) and part.get("type") == "binary"):
        return part
    mime = part.get("mimeType")
    if not isinstance(mime, str) or "/" not in mime:
        raise BadRequest(400, "a binary content part needs a mimeType like 'image/png'")
    if isinstance(part.get("data"), str):
        source = {"type": "data", "value": part["data"], "mimeType": mime}
    elif isinstance(part.get("url"), str):
        source = {"type": "url", "value": part["url"], "mimeType": mime}
    else:
        raise BadRequest(400, "a binary content part needs data (base64) or url")
    kind = mime.split("/")[0] if mime.split("/")[0] in ("image", "audio", "video") else "document"
    upgraded: dict[str, Any] = {"type": kind, "source": source}
    if isinstance(part.get("filename"), str):
        upgraded["metadata"] = {"filename": part["filename"]}
    return upgraded


def to_chat_message(message: Any) -> ChatMessage:
    """An AG-UI message as a codeact ``ChatMessage`` (user content parts included), keeping
    its id."""
    chat = _to_chat_message(message)
    if isinstance(getattr(message, "id", None), str):
        chat.id = message.id
    return chat


def _to_chat_message(message: Any) -> ChatMessage:
    role = message.role
    if role == "user":
        content = message.content
        if isinstance(content, str):
            return ChatMessage.user(content)
        return ChatMessage.user([_part(p) for p in content])
    if role == "assistant":
        calls = []
        for c in message.tool_calls or []:
            try:
                args = json.loads(c.function.arguments or "{}")
            except json.JSONDecodeError:
                args = {}
            calls.append(
                ToolCallRequest(
                    id=c.id, name=c.function.name, arguments=args if isinstance(args, dict) else {}
                )
            )
        return ChatMessage.assistant(message.content or "", calls)
    if role == "tool":
        return ChatMessage.tool(str(message.content), message.tool_call_id)
    if role in ("system", "developer"):
        return ChatMessage.system(str(message.content))
    raise BadRequest(400, f"messages with role {role!r} cannot drive a run")


def _part(part: Any) -> ContentPart:
    kind = getattr(part, "type", None)
    if kind == "text":
        return TextPart(text=part.text)
    if kind == "binary":
        data = getattr(part, "data", None)
        url = getattr(part, "url", None)
        return _binary(part.mime_type, data, url, getattr(part, "filename", None))
    source = getattr(part, "source", None)
    if source is not None:
        meta = getattr(part, "metadata", None)
        filename = meta.get("filename") if isinstance(meta, dict) else None
        mime = getattr(source, "mime_type", None) or "application/octet-stream"
        if getattr(source, "type", None) == "data":
            return _binary(mime, source.value, None, filename)
        return _binary(mime, None, source.value, filename)
    raise BadRequest(400, f"unsupported content part {kind!r}")


def _binary(mime: str, data: str | None, url: str | None, filename: str | None) -> BinaryPart:
    if data is not None:
        try:
            base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise BadRequest(400, "a binary content part has invalid base64 data") from None
    try:
        return BinaryPart(
            mime_type=mime, data=data, url=url if data is None else None, filename=filename
        )
    except ValidationError as exc:
        raise BadRequest(400, f"invalid content part: {exc.errors()[0]['msg']}") from None


def to_agui_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """The thread's typed turns as AG-UI wire messages (camelCase, no nulls), for history:
    the ids are the live stream's (assistant messages keep their ``message_id``, tool calls
    their ids, a result is ``tool-result-<call id>`` as its live TOOL_CALL_RESULT)."""
    out: list[dict[str, Any]] = []
    active = ""  # (threads stored before names were: the agent the last handoff named)
    for i, m in enumerate(messages):
        mid = m.id or f"m{i}"
        if m.role == "user":
            out.append({"id": mid, "role": "user", "content": m.text})
        elif m.role == "assistant":
            msg: dict[str, Any] = {"id": mid, "role": "assistant"}
            if m.name or active:
                msg["name"] = m.name or active
            for c in m.tool_calls:
                if c.name == "handoff" and isinstance(c.arguments.get("to_agent"), str):
                    active = c.arguments["to_agent"]
            if m.text:
                msg["content"] = m.text
            if m.tool_calls:
                msg["toolCalls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in m.tool_calls
                ]
            out.append(msg)
        elif m.role == "tool":
            tid = m.id or result_message_id(str(m.tool_call_id))
            out.append({"id": tid, "role": "tool", "content": m.text, "toolCallId": m.tool_call_id})
        else:
            out.append({"id": mid, "role": "system", "content": m.text})
    return out
