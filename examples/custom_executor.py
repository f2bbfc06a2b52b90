"""Example 3: plug your own executor.

A third-party package registers its executor under the entry-point group ``codeact.executors``
(in its pyproject.toml):

    [project.entry-points."codeact.executors"]
    recording = "my_package.executors:RecordingExecutor"

and users then pick it by name: ``CodeActAgent(executor="recording")`` or
``get_executor("recording")``.
This file defines such an executor and uses it directly (the entry-point lookup itself is
exercised by tests/executors/test_restricted_executor.py).
"""

from __future__ import annotations

import anyio

from codeact import CodeActAgent, CodeExecutor, ExecutionResult
from codeact.executors.base import OutputCallback
from codeact.llms import ScriptedLLM


class RecordingExecutor(CodeExecutor):
    """Doesn't run anything: records the code and answers with its line count."""

    name = "recording"

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []

    async def start(self) -> None:
        """Nothing to start."""

    async def execute(
        self, code: str, *, timeout: float | None = None, on_output: OutputCallback | None = None
    ) -> ExecutionResult:
        """Record the cell; report its number of lines as the value."""
        self.cells.append(code)
        if on_output is not None:
            on_output("stdout", f"received {len(code)} characters\n")
        return ExecutionResult(
            stdout=f"received {len(code)} characters\n", value=str(len(code.splitlines()))
        )

    async def reset(self) -> None:
        """Forget the recorded cells."""
        self.cells.clear()

    async def aclose(self) -> None:
        """Nothing to release."""


async def main() -> None:
    executor = RecordingExecutor()
    llm = ScriptedLLM(["<execute>\na = 1\nb = 2\n</execute>", "The executor saw 2 lines."])
    result = await CodeActAgent(llm=llm, executor=executor).run("count lines")
    print(result.response.text)
    print("cells seen by the custom executor:", executor.cells)


if __name__ == "__main__":
    anyio.run(main)
