"""Structured output: turn a finished conversation into a validated dict."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

from pydantic import BaseModel

from codeact._messages import ChatMessage
from codeact.agents._state import StructuredOutputFn
from codeact.llms.base import LLM

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_object(text: str) -> Any:
    """The first JSON object in ``text`` (a Markdown fence around it is fine)."""
    fenced = _FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    start = candidate.find("{")
    if start < 0:
        raise ValueError(f"no JSON object in the reply: {text[:200]!r}")
    obj, _ = json.JSONDecoder().raw_decode(candidate[start:])
    return obj


async def extract_structured(
    llm: LLM,
    messages: list[ChatMessage],
    output_cls: type[BaseModel] | None,
    fn: StructuredOutputFn | None,
) -> dict[str, Any]:
    """Use ``fn`` if given, else ask ``llm`` once for JSON matching ``output_cls``; validate."""
    if fn is not None:
        out = fn(list(messages))
        if inspect.isawaitable(out):
            out = await out
        if isinstance(out, BaseModel):
            return out.model_dump(mode="json")
        if isinstance(out, dict):
            return out
        raise TypeError(f"structured_output_fn must return a dict or a pydantic model, got {out!r}")
    assert output_cls is not None
    transcript = "\n".join(f"{m.role}: {m.text}" for m in messages if m.text)
    schema = json.dumps(output_cls.model_json_schema())
    prompt = (
        f"Here is a conversation:\n{transcript}\n\n"
        f"Extract the final answer as one JSON object that matches this JSON schema:\n{schema}\n"
        "Reply with the JSON object only."
    )
    resp = await llm.chat([ChatMessage.user(prompt)])
    data = parse_json_object(resp.message.text)
    return output_cls.model_validate(data).model_dump(mode="json")
