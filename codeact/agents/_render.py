"""Rendering the typed transcript in an agent style's text protocol, for the LLM input only.

Memory keeps tool rounds as typed turns: an assistant message with its ``tool_calls``, then the
``tool`` messages answering them. Native tool calling (FunctionAgent) sends them as they are;
CodeAct shows a round of ``execute`` calls as its reply followed by one user message with each
block's result; ReAct shows a round as its Thought/Action text followed by ``Observation:``
user messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from codeact._messages import BinaryPart, ChatMessage, ContentPart, TextPart

#: The name of CodeAct's code-running pseudo-tool (one call per ``<execute>`` block).
EXECUTE = "execute"

Round = tuple[ChatMessage, list[ChatMessage]]


def split_rounds(messages: Sequence[ChatMessage]) -> list[ChatMessage | Round]:
    """Messages, with each assistant message that calls tools grouped with the tool messages
    right after it that answer those calls."""
    out: list[ChatMessage | Round] = []
    i = 0
    while i < len(messages):
        m = messages[i]
        i += 1
        if m.role != "assistant" or not m.tool_calls:
            out.append(m)
            continue
        ids = {c.id for c in m.tool_calls}
        results: list[ChatMessage] = []
        while i < len(messages) and messages[i].role == "tool" and messages[i].tool_call_id in ids:
            results.append(messages[i])
            i += 1
        out.append((m, results))
    return out


def is_code_round(reply: ChatMessage) -> bool:
    """True when every call of the reply runs a code block."""
    return bool(reply.tool_calls) and all(c.name == EXECUTE for c in reply.tool_calls)


def execution_feedback(results: Sequence[ChatMessage]) -> str:
    """The user message CodeAct feeds back after a reply's blocks ran, in block order."""
    parts = []
    for i, res in enumerate(results, 1):
        label = "Execution result" if len(results) == 1 else f"Execution result of block {i}"
        parts.append(f"{label}:\n{res.text}")
    return "\n\n".join(parts)


def render_code_rounds(
    messages: Sequence[ChatMessage], *, images: bool = False
) -> list[ChatMessage]:
    """Rounds of ``execute`` calls as CodeAct's text protocol; everything else unchanged.
    With ``images``, the cells' PNG figures follow the feedback text as image parts."""
    out: list[ChatMessage] = []
    for item in split_rounds(messages):
        if isinstance(item, ChatMessage):
            out.append(item)
            continue
        reply, results = item
        if not is_code_round(reply):
            out += [reply, *results]
            continue
        out.append(ChatMessage(role="assistant", content=reply.content, id=reply.id))
        if results:
            feedback = ChatMessage.user(execution_feedback(results))
            out.append(_with_images(feedback, results) if images else feedback)
    return out


def _with_images(message: ChatMessage, results: Sequence[ChatMessage]) -> ChatMessage:
    """``message`` with the cells' PNG figures as image parts after its text."""
    pngs = [i for r in results if r.execution is not None for i in r.execution.images]
    if not pngs:
        return message
    parts: list[ContentPart] = [TextPart(text=message.text)]
    parts += [BinaryPart(mime_type="image/png", data=i) for i in pngs]
    return message.model_copy(update={"content": parts})


def render_react_rounds(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Tool rounds as ReAct's text protocol (``Observation:`` user messages); a round written
    without ReAct text (by a native tool-calling agent of a workflow) gets its Action lines."""
    out: list[ChatMessage] = []
    for item in split_rounds(messages):
        if isinstance(item, ChatMessage):
            out.append(item)
            continue
        reply, results = item
        text = reply.text
        if not text.strip():
            text = "\n".join(
                f"Action: {c.name}\nAction Input: {json.dumps(c.arguments, ensure_ascii=False)}"
                for c in reply.tool_calls
            )
        out.append(ChatMessage(role="assistant", content=text, id=reply.id))
        out += [ChatMessage.user(f"Observation: {r.text}") for r in results]
    return out
