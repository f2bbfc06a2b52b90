"""Example 2: the same kind of data task in the Docker sandbox, with a file upload.

Needs a Docker engine and the sandbox image (`codeact sandbox build`). Uses the local model, or a
scripted one when CODEACT_EXAMPLE_SCRIPTED=1.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from codeact import CodeActAgent, Context
from codeact.executors.docker import DockerExecutor
from codeact.llms import LLM, ScriptedLLM

DATA = Path(__file__).parent / "data" / "sales.csv"


def make_llm() -> LLM:
    if os.environ.get("CODEACT_EXAMPLE_SCRIPTED"):
        return ScriptedLLM(
            [
                "<execute>\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\n"
                "best = df.groupby('product')['units'].sum().idxmax()\nprint(best)\n</execute>",
                "The best-selling product is coffee.",
            ],
            function_calling=False,
        )
    from codeact.llms.local import LocalLLM

    return LocalLLM()


async def main() -> None:
    agent = CodeActAgent(llm=make_llm(), executor=lambda: DockerExecutor(memory="512m"))
    async with Context() as ctx:  # removes the container at the end
        sandbox = agent.executor_for(ctx)
        await sandbox.upload("sales.csv", DATA.read_bytes())
        result = await agent.run("Which product sold the most units?", ctx=ctx)
    print("answer:", result.response.text)


if __name__ == "__main__":
    anyio.run(main)
