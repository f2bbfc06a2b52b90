"""An agent factory for `codeact serve --agent tests.server.serve_factory:make` (used by tests)."""

from __future__ import annotations

from typing import Any

from codeact import FunctionAgent
from codeact.llms import ScriptedLLM


def make() -> FunctionAgent:
    return FunctionAgent(llm=ScriptedLLM(["served by the CLI"] * 5))


def slow() -> FunctionAgent:
    """Streams 200 words, ``CODEACT_TEST_DELAY`` seconds apart (default 0.1)."""
    import os

    from codeact.llms import Reply

    delay = float(os.environ.get("CODEACT_TEST_DELAY", "0.1"))
    words = [f"w{i} " for i in range(200)]
    return FunctionAgent(llm=ScriptedLLM([Reply(chunks=words, chunk_delay=delay)] * 20))


def big() -> FunctionAgent:
    """A 4 MB answer streamed in 1 KB chunks."""
    from codeact.llms import Reply

    chunk = "x" * 1023 + "\n"
    return FunctionAgent(llm=ScriptedLLM([Reply(chunks=[chunk] * 4096)] * 3))


def code() -> object:
    """A CodeAct agent: "set" runs ``x = 41`` in the thread's sandbox, "get" prints ``x + 1``;
    the answer is the cell's output (so a test sees whether the variable survived)."""
    from codeact import CodeActAgent
    from codeact.llms import FunctionLLM

    cells = {"set": "x = 41\nprint('set')", "get": "print(x + 1)"}

    def reply(messages: list[Any], tools: list[Any]) -> str:
        last = messages[-1].text.strip()
        if last in cells:
            return f"<execute>\n{cells[last]}\n</execute>"
        return "result: " + last[-300:]

    return CodeActAgent(llm=FunctionLLM(reply, function_calling=False))
