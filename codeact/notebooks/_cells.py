"""The typed transcript as notebook cells: user messages and the agents' prose as markdown,
each executed block as a code cell with its outputs, other tool calls (a handoff, a lookup) as
markdown notes."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.notebooks._nodes import Nodes
from codeact.notebooks._outputs import Budget, bounded, cell_outputs
from codeact.notebooks._setup import sandbox_comment, sandbox_uses

_EXECUTE_TAG = re.compile(r"<execute>.*?(?:</execute>|$)", re.DOTALL)
_FENCED = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)
#: A non-code tool's result shown in its markdown note at most this long.
MAX_TOOL_RESULT_CHARS = 2000

__all__ = ["Transcript", "build_cells"]


@dataclass
class Transcript:
    """What building the cells found out, for the set-up cell and the metadata."""

    cells: list[Any] = field(default_factory=list)
    final_answer: bool = False
    tools: set[str] = field(default_factory=set)
    matplotlib: bool = False
    count: int = 0
    budget: Budget = field(default_factory=Budget)


def build_cells(messages: Sequence[ChatMessage], nbf: Nodes, strip: str = "") -> Transcript:
    """Cells for ``messages`` (system messages are left out). ``strip`` is removed from user
    messages (the files note a CLI adds to the question: the files cell replaces it)."""
    out = Transcript()
    results = {m.tool_call_id: m for m in messages if m.role == "tool"}
    speaker = active = ""  # the agent last named, the agent a handoff gave the turn to
    for m in messages:
        if m.role == "user":
            text = m.text.replace(strip, "").strip() if strip else m.text.strip()
            out.cells.append(nbf.new_markdown_cell(_md("**User:**\n\n" + text)))
        elif m.role == "assistant":
            name = m.name or active
            who = [_escape(name)] if name and name != speaker else []
            if not m.tool_calls:  # a reply that calls nothing answers the user
                who.append("answer" if who else "Answer")
            label = f"**{' — '.join(who)}:**\n\n" if who else ""
            prose = _prose(m.text, m.tool_calls)
            if prose:  # (the name is shown with the agent's first words)
                out.cells.append(nbf.new_markdown_cell(_md(label + prose)))
                speaker = name or speaker
            for call in m.tool_calls:
                _add_call(out, call, results.get(call.id), name, nbf)
                if call.name == "handoff" and isinstance(call.arguments.get("to_agent"), str):
                    active = call.arguments["to_agent"]
    return out


def _add_call(
    out: Transcript, call: ToolCallRequest, result: ChatMessage | None, agent: str, nbf: Nodes
) -> None:
    code = call.arguments.get("code")
    if not isinstance(code, str) or (result is not None and result.execution is None):
        out.cells.append(nbf.new_markdown_cell(_md(_tool_note(call, result))))
        return
    out.count += 1
    final, tools = sandbox_uses(code)
    out.final_answer |= final
    out.tools |= tools
    out.matplotlib |= "matplotlib" in code
    comment = sandbox_comment(final, tools)
    meta: dict[str, Any] = {"codeact": {"tool_call_id": call.id}}
    if agent:
        meta["codeact"]["agent"] = agent
    tags: list[str] = []
    outputs: list[Any] = []
    if result is None:
        comment = (comment + "\n" if comment else "") + "# The run stopped before this cell ran."
    else:
        ex = result.execution
        assert ex is not None
        out.matplotlib |= bool(ex.images)
        outputs = cell_outputs(ex, out.count, out.budget, nbf)
        meta["codeact"].update(ok=ex.ok, duration_s=round(ex.duration_s, 4))
        if not ex.ok or tools:  # the notebook runs on past it (nbclient, Jupyter's "Run all")
            tags.append("raises-exception")
    if tags:
        meta["tags"] = tags
    source = f"{comment}\n{code}" if comment else code
    cell = nbf.new_code_cell(source, execution_count=out.count, outputs=outputs, metadata=meta)
    out.cells.append(cell)


def _tool_note(call: ToolCallRequest, result: ChatMessage | None) -> str:
    """A markdown note for a call that ran no code (a handoff, a host tool)."""
    if call.name == "handoff":
        to = _escape(str(call.arguments.get("to_agent", "")))
        reason = call.arguments.get("reason")
        why = f": {_escape(str(reason))}" if reason else ""
        return f"*Handed the conversation to **{to}**{why}*"
    args = json.dumps(call.arguments, ensure_ascii=False)
    note = f"*Called the tool* `{_code_span(call.name)}` *with* `{_code_span(args)}`"
    if result is not None:
        text = result.text
        if len(text) > MAX_TOOL_RESULT_CHARS:
            text = text[:MAX_TOOL_RESULT_CHARS] + f"\n… [{len(result.text)} characters in all]"
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall("`+", text)), default=0))
        note += f"\n\n{fence}text\n{text}\n{fence}"
    return note


def _prose(text: str, calls: list[ToolCallRequest]) -> str:
    """The reply without its code blocks (they become code cells)."""
    text = _EXECUTE_TAG.sub("", text)
    codes = {c.arguments.get("code", "").strip() for c in calls if isinstance(c.arguments, dict)}
    codes.discard("")

    def drop(m: re.Match[str]) -> str:
        return "" if m.group(1).strip() in codes else m.group(0)

    if codes:
        text = _FENCED.sub(drop, text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _md(text: str) -> str:
    """Markdown text, cut in the middle when very long."""
    return bounded(text, "text")


def _escape(text: str) -> str:
    """Text shown inside markdown emphasis: no markup, no HTML, one line."""
    text = " ".join(text.split())
    return re.sub(r"([\\`*_{}\[\]<>#|])", r"\\\1", text)


def _code_span(text: str) -> str:
    return " ".join(text.split()).replace("`", "'")[:500]
