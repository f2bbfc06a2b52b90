"""ReActAgent: Thought / Action / Action Input / Observation / Answer, for LLMs without tools."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.agents._render import render_code_rounds, render_react_rounds
from codeact.agents._style_state import ReActRunState
from codeact.agents.base import BaseAgent, RunState, StepContext
from codeact.events import AgentOutput, ToolCallResult
from codeact.tools import BaseTool

REACT_HEADER = """\
You answer questions, using tools when they help. Available tools:
{tools}

To use a tool, reply exactly in this format and then stop:
Thought: <what you need to do next>
Action: <one tool name from: {names}>
Action Input: <the tool's arguments as a JSON object, e.g. {{"input": "hello"}}>

You will then get:
Observation: <the tool's result>

Repeat as needed. When you can answer without more tools, reply:
Thought: I can answer without using any more tools.
Answer: <your answer>
"""

FORMAT_HELP = (
    "The output should be in one of the following formats:\n"
    "1. To call a tool:\n```\nThought: <thought>\nAction: <action>\n"
    "Action Input: <action_input>\n```\n"
    "2. To answer the question:\n```\nThought: <thought>\nAnswer: <answer>\n```\n"
)

_ACTION = re.compile(r"^[ \t]*Action[ \t]*:[ \t]*([^\n(]+?)[ \t]*(?:\(.*)?$", re.MULTILINE)
_INPUT = re.compile(r"^[ \t]*Action[ \t]*Input[ \t]*:", re.MULTILINE)
_ANSWER = re.compile(r"^[ \t]*Answer[ \t]*:", re.MULTILINE)
_THOUGHT = re.compile(
    r"^[ \t]*Thought[ \t]*:[ \t]*(.*?)(?=^[ \t]*(?:Action|Answer)[ \t]*:|\Z)",
    re.MULTILINE | re.DOTALL,
)
_OBSERVATION = re.compile(r"^[ \t]*Observation[ \t]*:", re.MULTILINE)


class ReActParseError(ValueError):
    """The reply follows none of the formats; the message says what is wrong."""


@dataclass
class ReActStep:
    """One parsed reply: an action to run or an answer."""

    thought: str
    action: str | None = None
    action_input: dict[str, Any] | None = None
    answer: str | None = None
    text: str = ""  # the reply up to the end of what was parsed (hallucinated observations cut)


def parse_react(text: str) -> ReActStep:
    """Parse a reply tolerantly: Action without Thought is fine, JSON may be lenient, and a reply
    without any keyword is an answer."""
    if not text.strip():
        raise ReActParseError("Got an empty message.")
    thought_m = _THOUGHT.search(text)
    thought = thought_m.group(1).strip() if thought_m else ""
    action_m = _ACTION.search(text)
    answer_m = _ANSWER.search(text)
    if action_m and (not answer_m or action_m.start() < answer_m.start()):
        input_m = _INPUT.search(text, action_m.end())
        if input_m is None:
            raise ReActParseError(f"Action {action_m.group(1)!r} has no 'Action Input:' line.")
        end_obs = _OBSERVATION.search(text, input_m.end())
        raw = text[input_m.end() : end_obs.start() if end_obs else len(text)]
        args, consumed = _lenient_json(raw)
        cut = input_m.end() + consumed
        return ReActStep(
            thought=thought or text[: action_m.start()].strip(),
            action=action_m.group(1).strip(),
            action_input=args,
            text=text[:cut].rstrip(),
        )
    if answer_m:
        return ReActStep(thought=thought, answer=text[answer_m.end() :].strip(), text=text.strip())
    if thought_m is not None:
        raise ReActParseError("Got a Thought without an Action or an Answer.")
    return ReActStep(
        thought="(Implicit) I can answer without any more tools!",
        answer=text.strip(),
        text=text.strip(),
    )


def _lenient_json(raw: str) -> tuple[dict[str, Any], int]:
    """The JSON object in ``raw`` (single quotes, Python literals and fences tolerated) and how
    many characters of ``raw`` it used."""
    start = raw.find("{")
    end = raw.rfind("}")
    if start < 0 or end < start:
        raise ReActParseError('Action Input must be a JSON object, e.g. {"query": "..."}.')
    snippet = raw[start : end + 1]
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(snippet)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, dict):
            return {str(k): v for k, v in value.items()}, end + 1
    pairs = dict(re.findall(r'"(\w+)"\s*:\s*"([^"]*)"', snippet))
    if pairs:
        return pairs, end + 1
    raise ReActParseError(f"Could not parse Action Input as JSON: {snippet[:200]}")


def _render_tools(tools: list[BaseTool]) -> str:
    lines = []
    for t in tools:
        schema = json.dumps(t.metadata.parameters.get("properties", {}))
        lines.append(f"- {t.name}: {t.metadata.description} Arguments: {schema}")
    return "\n".join(lines) or "(no tools)"


class ReActAgent(BaseAgent):
    """Uses tools through a text protocol, so any chat LLM works (no native tool calling)."""

    tool_concurrency = 1

    def __init__(self, *, react_header: str = REACT_HEADER, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.react_header = react_header

    def system_message(self, tools: list[BaseTool]) -> ChatMessage:
        """The ReAct header with the tools, then the user's ``system_prompt``."""
        text = self.react_header.format(
            tools=_render_tools(tools), names=", ".join(t.name for t in tools) or "(none)"
        )
        if self.system_prompt:
            text = f"{text}\n{self.system_prompt}"
        return ChatMessage.system(text)

    async def take_step(
        self, step: StepContext, llm_input: list[ChatMessage], tools: list[BaseTool]
    ) -> AgentOutput:
        """Stream a reply and parse it; a parse failure becomes a retry message."""
        text = await self.stream_text(step, llm_input)
        trace = step.run.state_of(ReActRunState).reasoning
        try:
            parsed = parse_react(text)
        except ReActParseError as exc:
            reply = ChatMessage.assistant(text)
            note = ChatMessage.user(f"Error while parsing the output: {exc}\n\n{FORMAT_HELP}")
            trace.append({"type": "parse_error", "text": text, "error": str(exc)})
            return AgentOutput(response=reply, retry_messages=[reply, note])
        if parsed.action is not None:
            call = ToolCallRequest(name=parsed.action, arguments=parsed.action_input or {})
            trace.append(
                {
                    "type": "action",
                    "thought": parsed.thought,
                    "action": parsed.action,
                    "input": parsed.action_input,
                }
            )
            return AgentOutput(response=ChatMessage.assistant(parsed.text), tool_calls=[call])
        trace.append({"type": "answer", "thought": parsed.thought, "answer": parsed.answer})
        return AgentOutput(response=ChatMessage.assistant(parsed.answer or ""), raw=list(trace))

    def render_messages(self, messages: list[ChatMessage]) -> list[ChatMessage]:
        """Each tool round as the Thought/Action text, then ``Observation: ...`` as a user
        message per result (rounds of code blocks as CodeAct's text)."""
        return render_react_rounds(render_code_rounds(messages))

    def record_tool_round(
        self, run: RunState, output: AgentOutput, results: list[ToolCallResult]
    ) -> None:
        """The typed round, and its observations in the reasoning trace."""
        super().record_tool_round(run, output, results)
        trace = run.state_of(ReActRunState).reasoning
        for res in results:
            trace.append({"type": "observation", "content": res.tool_output.content})
