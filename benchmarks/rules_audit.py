"""How often the answer rules fire on cells that printed the right answer (false alarms) and
on cells that ran but printed a wrong one (alarms), over stored transcripts.

Run by hand, after ``answer_quality.py --transcript --out FILE`` (any splits, any number of
files; the last record of a question in a file counts)::

    .venv/bin/python benchmarks/rules_audit.py FILE [FILE ...] [--show]

Each successful cell is checked alone, with the question and the files note the benchmark
gives, by the same validator ``codeact run`` uses (``rules_validator``). A cell "printed the
right answer" when every expected value appears in its output as the harness writes it. No
model runs: a rule changed can be measured against every transcript in seconds.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import answer_quality as aq

from codeact.agents.code import describe_files
from codeact.agents.validators import AnswerCandidate, CellRun, ModelRetry, rules_validator


def rule_said(question: str, code: str) -> str | None:
    """What the rules say of one successful cell's ``code`` (None: nothing)."""
    cell = CellRun(code=code, stdout="1")
    try:
        rules_validator()(AnswerCandidate(text="@x[1]", question=question, cells=(cell,)))
    except ModelRetry as exc:
        return str(exc)
    return None


@functools.cache
def _every_question() -> tuple[dict[str, bytes], list[aq.Question]]:
    return aq.every_question()  # (generated once for all the transcripts)


def transcript_questions(path: str) -> list[tuple[str, dict[str, Any], str]]:
    """Each question's last record in the transcript file ``path``, with the question as the
    agent saw it (and the files note the benchmark gives); records of unknown ids are left
    out."""
    files, questions = _every_question()
    by_id = {q.id: q for q in questions}
    records = {}
    for line in Path(path).read_text().splitlines():
        record = json.loads(line)
        records[record["id"]] = record
    out = []
    for qid, record in records.items():
        q = by_id.get(qid)
        if q is not None:
            shown = {q.file: files[q.file], **{f: files[f] for f in q.other_files}}
            out.append((qid, record, f"{q.text}\n\n{describe_files(shown)}"))
    return out


def main() -> None:
    """Audit the transcripts given on the command line and print the two rates."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcripts", nargs="+", help="answer_quality.py --transcript files")
    parser.add_argument("--show", action="store_true", help="print each cell a rule fired on")
    args = parser.parse_args()
    counts = {"right": [0, 0], "wrong": [0, 0]}  # kind: [cells, cells a rule fired on]
    for path in args.transcripts:
        for qid, record, question in transcript_questions(path):
            expected = [str(v) for v in record["expected"].values()]
            for cell in record.get("cells_run") or []:
                if cell["error"]:
                    continue
                kind = "right" if all(e in (cell["out"] or "") for e in expected) else "wrong"
                counts[kind][0] += 1
                said = rule_said(question, cell["code"])
                if said:
                    counts[kind][1] += 1
                    if args.show:
                        print(f"{kind:5} {qid:30} {said[:110]}")
    for kind, (cells, fired) in counts.items():
        share = f"{fired / cells:.0%}" if cells else "-"
        print(f"{kind} cells: {cells}, a rule fired on {fired} ({share})")


if __name__ == "__main__":
    main()
