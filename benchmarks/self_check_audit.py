"""How well the self-check (``codeact.agents.validators.SelfCheck``) tells right answers from
wrong ones, over stored transcripts: the model rates the code that printed each run's final
answer with the agent's prompt, and the ratings of right and wrong answers are compared at
several thresholds. Close to what the agent would ask, not the same: transcripts keep the
last 1,000 characters of a cell's output (the check shows up to 1,500) and 600 of the reply,
and every run is rated, also those the agent would not rate (an answer on the last step or
from ``final_answer()``).

Run by hand, after ``answer_quality.py --transcript --out FILE`` (any splits; the last record
of a question in a file counts)::

    .venv/bin/python benchmarks/self_check_audit.py FILE [FILE ...] [--scores OUT.jsonl]
    .venv/bin/python benchmarks/self_check_audit.py --from-scores OUT.jsonl   # no model

One forward pass of the embedded model per run (no reply is generated); the audit prints, per
threshold, how many right answers would be sent back (false alarms) and how many wrong ones
(alarms), the rank AUC of the rating, and the check's median and worst time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).parent))

from rules_audit import transcript_questions

from codeact.agents.validators import AnswerCandidate, CellRun, SelfCheck
from codeact.llms import infer_llm

THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9)


def candidates(paths: list[str]) -> list[tuple[dict[str, Any], AnswerCandidate]]:
    """Each run's final answer with the question (and files note) and cells it had."""
    out = []
    for path in paths:
        for _, record, question in transcript_questions(path):
            if not record.get("cells_run"):
                continue
            cells = tuple(
                CellRun(code=c["code"], stdout=c.get("out") or "", error=c.get("error"))
                for c in record["cells_run"]
            )
            text = record.get("reply") or ""
            out.append((record, AnswerCandidate(text=text, question=question, cells=cells)))
    return out


async def score_all(paths: list[str], threads: int, save: str | None) -> list[dict]:
    """Rate every candidate with the embedded model; one row per run."""
    check = SelfCheck(timeout=600)
    rows = []
    llm = infer_llm("local", progress=lambda m: print(m, file=sys.stderr), threads=threads)
    # (this run's ratings only, one line per rating as it comes: a stopped audit keeps them)
    async with llm, await anyio.open_file(save or os.devnull, "w") as out:
        for record, candidate in candidates(paths):
            start = time.perf_counter()
            score = await check.score(llm, candidate)
            row = {
                "id": record["id"],
                "split": record["split"],
                "level": record["level"],
                "correct": record["correct"],
                "score": score,
                "seconds": round(time.perf_counter() - start, 2),
            }
            rows.append(row)
            print(f"{row['id']:32} right={row['correct']!s:5} score={score}", file=sys.stderr)
            await out.write(json.dumps(row) + "\n")
            await out.flush()
    return rows


def auc(right: list[float], wrong: list[float]) -> float:
    """The chance a right answer is rated above a wrong one (ties count half)."""
    pairs = [(r > w) + 0.5 * (r == w) for r in right for w in wrong]
    return sum(pairs) / len(pairs) if pairs else float("nan")


def report(rows: list[dict]) -> None:
    """Per threshold: right and wrong answers sent back; the rating's AUC; the check's time."""
    rated = [r for r in rows if r["score"] is not None]
    right = [r["score"] for r in rated if r["correct"]]
    wrong = [r["score"] for r in rated if not r["correct"]]
    print(f"rated {len(rated)} of {len(rows)} runs: {len(right)} right, {len(wrong)} wrong")
    print(f"AUC {auc(right, wrong):.3f}")
    print("threshold  right sent back  wrong sent back")
    for t in THRESHOLDS:
        fr = sum(s < t for s in right)
        fw = sum(s < t for s in wrong)
        print(
            f"{t:9.2f}  {fr:4d}/{len(right):<4d} ({fr / max(1, len(right)):4.0%})"
            f"    {fw:4d}/{len(wrong):<4d} ({fw / max(1, len(wrong)):4.0%})"
        )
    seconds = [r["seconds"] for r in rows]
    if seconds:
        print(f"check time: median {statistics.median(seconds):.1f} s, worst {max(seconds):.1f} s")


def main() -> None:
    """Rate the transcripts given on the command line (or read saved ratings) and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcripts", nargs="*", help="answer_quality.py --transcript files")
    parser.add_argument("--scores", help="append each rating to this JSON-lines file")
    parser.add_argument("--from-scores", help="report on ratings saved before (no model)")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.from_scores:
        rows = [json.loads(x) for x in Path(args.from_scores).read_text().splitlines()]
    else:
        rows = anyio.run(score_all, args.transcripts, args.threads, args.scores)
    report(rows)


if __name__ == "__main__":
    main()
