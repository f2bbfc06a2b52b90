"""Notebook export: time and size for a 50-cell thread with 10 figures.

Run by hand: ``.venv/bin/python benchmarks/notebook_export.py [--runs N]``. Prints the median
time of ``to_notebook`` + ``nbformat.writes`` and the notebook's size against the figures' size
(target: under 100 ms; no bigger than the figures plus a few KB).
"""

from __future__ import annotations

import argparse
import base64
import io
import statistics
import time

from codeact import ChatMessage, ToolCallRequest
from codeact._execution import ExecutionResult


def figure_png() -> str:
    """A real matplotlib chart (base64 PNG), like the ones cells draw."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    ax.bar(["Paris", "Nice", "Lyon"], [33, 28, 24])
    ax.set_title("Units per city")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def thread(cells: int = 50, figures: int = 10) -> tuple[list[ChatMessage], int]:
    """A thread of ``cells`` code rounds (``figures`` of them draw a chart); returns the
    messages and the figures' size in base64 characters."""
    png = figure_png()
    messages = [ChatMessage.user("Analyse sales.csv step by step.")]
    every = max(cells // max(figures, 1), 1)
    drawn = 0
    for i in range(cells):
        code = f"totals_{i} = df.groupby('city')['units'].sum()\nprint(totals_{i}.to_string())"
        images = []
        if i % every == 0 and drawn < figures:
            images, drawn = [png], drawn + 1
        result = ExecutionResult(
            stdout="city\nLyon     24\nNice     28\nParis    33\n", images=images, duration_s=0.01
        )
        call = ToolCallRequest(name="execute", arguments={"code": code})
        messages.append(ChatMessage.assistant(f"Step {i}.\n<execute>\n{code}\n</execute>", [call]))
        messages.append(ChatMessage.tool(result.to_observation(), call.id, execution=result))
    messages.append(ChatMessage.assistant("Paris sold the most units."))
    return messages, drawn * len(png)


def main() -> None:
    from codeact.notebooks import notebook_json, to_notebook

    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    messages, figure_chars = thread()
    times, size = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        size = len(notebook_json(to_notebook(messages)))
        times.append(time.perf_counter() - t0)
    print(f"50 cells, 10 figures: median {statistics.median(times) * 1000:.1f} ms over {runs} runs")
    rest = size - figure_chars
    print(
        f"notebook {size / 1024:.1f} KB; figures {figure_chars / 1024:.1f} KB; "
        f"the rest {rest / 1024:.1f} KB ({rest / 50:.0f} B a cell)"
    )


if __name__ == "__main__":
    main()
