"""Replay what the model said in a transcript through the agent as it is now, without the model.

Run by hand, after ``answer_quality.py --transcript --out FILE``::

    .venv/bin/python benchmarks/answer_replay.py FILE QUESTION_ID

The model's replies recorded for the question become a ``ScriptedLLM`` and go through the same
agent configuration (``cli``), sandbox and data as the benchmark: what the agent's checks,
repairs and answers now make of exactly what the model said then (a rule added for a failure
can be seen working before an hour-long run with the model). Replies that depended on what
the agent told the model may no longer fit: the replay shows where.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).parent))

import answer_quality as aq

from codeact.llms import ScriptedLLM


def replies_of(record: dict[str, Any]) -> list[str]:
    """The model's replies a transcript record kept, in order."""
    said = record.get("said") or []
    return [s.removeprefix("model: ") for s in said if s.startswith("model: ")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", help="an answer_quality.py --transcript --out file")
    parser.add_argument("question", help="the question id to replay")
    parser.add_argument("--max-steps", type=int, default=8)
    args = parser.parse_args()
    records = [json.loads(line) for line in Path(args.transcript).read_text().splitlines()]
    record = next((r for r in records if r["id"] == args.question), None)
    if record is None or not record.get("said"):
        sys.exit(
            f"{args.question!r} has no transcript in {args.transcript} (run with --transcript)"
        )
    files, questions = aq.every_question()
    question = next(q for q in questions if q.id == args.question)
    llm = ScriptedLLM(
        [*replies_of(record), "(the transcript has no more replies)"], function_calling=False
    )
    got = anyio.run(
        lambda: aq.ask(llm, question, files, "cli", args.max_steps, None, transcript=True)
    )
    print(f"then: {record['reply']!r} ({'right' if record['correct'] else 'wrong'})")
    print(f"now:  {got['reply']!r} ({'right' if got['correct'] else 'wrong'})")
    for line in got["said"]:
        print("  " + line.replace("\n", "\n    "))


if __name__ == "__main__":
    main()
