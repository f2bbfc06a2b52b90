"""Answer quality of the CodeAct agent on data questions, with the embedded model by default.

Run by hand (the embedded model needs ``make setup-local``)::

    .venv/bin/python benchmarks/answer_quality.py --split heldout --config baseline --config all
    .venv/bin/python benchmarks/answer_quality.py --split tune --limit 8 --config code_first

Each question gets a fresh agent and a fresh sandbox (restricted executor, process isolation,
pandas/numpy opted in) with its CSV uploaded and described in the prompt, as ``codeact run
--file`` does. The answer is scored exactly (``benchmarks/answer_data.py``). For every
configuration it prints: accuracy, the share of answers given without any code having run,
median steps (LLM calls) and median wall time per question; ``--out FILE`` writes one JSON
line per question and configuration.

Configurations (agent options; see the CodeActAgent docstring):
  cli         exactly what ``codeact run --file`` uses (command_line_options)
  baseline    the agent as ``codeact run`` built it before the small-model work (all off)
  code_first  require_execution: an answer is accepted only after a cell ran without error
  validators  the @name[...] placeholder validator (retry with a reason; carry computed values)
  lenient     fenced ```python blocks run when a reply has no <execute> block
  prompt      the system prompt for small models (SMALL_MODEL_INSTRUCTIONS)
  all         code_first + validators + lenient: what ``codeact run`` uses with files
  all_prompt  all of it plus the small-model prompt
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).parent))

from answer_data import Question, build_questions, check, generate_files
from answer_data_fresh import build_fresh_questions, generate_fresh_files
from answer_data_fresh2 import build_fresh2_questions, generate_fresh2_files
from answer_data_fresh3 import build_fresh3_questions, generate_fresh3_files
from answer_data_fresh4 import build_fresh4_questions, generate_fresh4_files
from answer_data_fresh5 import build_fresh5_questions, generate_fresh5_files
from answer_data_fresh6 import build_fresh6_questions, generate_fresh6_files
from answer_data_fresh7 import build_fresh7_questions, generate_fresh7_files
from answer_data_fresh8 import build_fresh8_questions, generate_fresh8_files
from answer_data_fresh9 import build_fresh9_questions, generate_fresh9_files
from answer_data_fresh10 import build_fresh10_questions, generate_fresh10_files
from answer_data_fresh11 import build_fresh11_questions, generate_fresh11_files
from answer_data_fresh12 import build_fresh12_questions, generate_fresh12_files
from answer_data_fresh13 import build_fresh13_questions, generate_fresh13_files
from answer_data_fresh14 import build_fresh14_questions, generate_fresh14_files
from answer_data_fresh15 import build_fresh15_questions, generate_fresh15_files
from answer_data_fresh16 import build_fresh16_questions, generate_fresh16_files
from answer_data_fresh17 import build_fresh17_questions, generate_fresh17_files
from answer_data_fresh18 import build_fresh18_questions, generate_fresh18_files
from answer_data_fresh19 import build_fresh19_questions, generate_fresh19_files
from answer_data_fresh20 import build_fresh20_questions, generate_fresh20_files
from answer_data_fresh21 import build_fresh21_questions, generate_fresh21_files
from answer_data_fresh22 import build_fresh22_questions, generate_fresh22_files
from answer_data_fresh23 import build_fresh23_questions, generate_fresh23_files
from answer_data_styled import build_styled_questions, generate_styled_files

from codeact import CodeActAgent, Context, RestrictedExecutor
from codeact.agents.code import describe_files
from codeact.events import AgentInput, AgentOutput, AnswerRetry, RunFinished, ToolCallResult
from codeact.llms import LLM, infer_llm

ConfigFn = Callable[[Question], dict[str, Any]]


def _options(question: Question, **flags: bool) -> dict[str, Any]:
    """Agent keyword options for one configuration (only options the agent knows)."""
    try:
        from codeact.agents import code as module
    except ImportError:  # an older checkout
        from codeact.agents import codeact as module  # type: ignore[no-redef]
    from codeact.agents.validators import placeholder_validator

    out: dict[str, Any] = {}
    if flags.get("code_first"):
        out["require_execution"] = True
    if flags.get("validators"):
        out["answer_validators"] = [placeholder_validator(question.text)]
    if flags.get("lenient"):
        out["lenient_code_blocks"] = True
    if flags.get("prompt"):
        out["code_act_system_prompt"] = module.SMALL_MODEL_INSTRUCTIONS
    return out


def _cli_options(question: Question) -> dict[str, Any]:
    """Exactly what ``codeact run --file`` gives the agent (code first, its validators,
    lenient blocks for the embedded model)."""
    from codeact.agents._answers import command_line_options
    from codeact.llms.local import LocalLLM

    return command_line_options(LocalLLM.__new__(LocalLLM), require_execution=True)


def _cli_checked(question: Question) -> dict[str, Any]:
    """``codeact run --file --self-check``: the CLI's options and the model's rating of the
    answer's code (``SelfCheck``)."""
    from codeact.agents._answers import command_line_options
    from codeact.llms.local import LocalLLM

    return command_line_options(LocalLLM.__new__(LocalLLM), require_execution=True, self_check=True)


CONFIGS: dict[str, ConfigFn] = {
    "cli": _cli_options,
    "cli_check": _cli_checked,
    "baseline": lambda q: {},
    "code_first": lambda q: _options(q, code_first=True),
    "validators": lambda q: _options(q, validators=True),
    "lenient": lambda q: _options(q, lenient=True),
    "prompt": lambda q: _options(q, prompt=True),
    "all": lambda q: _options(q, code_first=True, validators=True, lenient=True),
    "all_prompt": lambda q: _options(
        q, code_first=True, validators=True, lenient=True, prompt=True
    ),
}


async def ask(
    llm: LLM,
    question: Question,
    files: dict[str, bytes],
    config: str,
    max_steps: int,
    timeout: float | None = None,
    transcript: bool = False,
) -> dict[str, Any]:
    """Run one question under one configuration; the scored record."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        executor = RestrictedExecutor(isolation="process", allowed_modules=["pandas", "numpy"])
    agent = CodeActAgent(
        llm=llm, executor=lambda: executor, max_iterations=max_steps, **CONFIGS[config](question)
    )
    data = {name: files[name] for name in (question.file, *question.other_files)}
    prompt = f"{question.text}\n\n{describe_files(data)}"
    steps = 0
    ran: list[Cell] = []
    said: list[str] = []  # the model's replies and the agent's send-backs, in order
    reply, value, error, at_limit = "", None, None, None
    t0 = time.perf_counter()
    async with Context() as ctx, executor:
        for name, blob in data.items():  # a join question needs more than one file
            await agent.executor_for(ctx).upload(name, blob)
        handler = agent.run(prompt, ctx=ctx, timeout=timeout)
        async for ev in handler.stream_events():
            if isinstance(ev, AgentInput):
                steps += 1
            elif isinstance(ev, ToolCallResult) and ev.tool_name == "execute":
                ran.append(Cell.of(ev))
            elif isinstance(ev, AgentOutput):
                said.append(f"model: {ev.response.text or ''}")  # (whole: replays use it)
            elif isinstance(ev, AnswerRetry):
                said.append(f"retry ({ev.reason}): {ev.message}")
            elif isinstance(ev, RunFinished):
                reply, value = ev.result.response.text or "", ev.result.value
                raw = ev.result.raw if isinstance(ev.result.raw, dict) else {}
                at_limit = raw.get("at_limit")
        try:
            await handler
        except Exception as exc:  # a failed run scores as wrong, with its reason kept
            error = f"{type(exc).__name__}: {exc}"
            reply, at_limit = _limit_answer(question.text, ran, exc)
    answer_text = reply if value is None else f"{reply}\n{value}"
    cells, ok_cells = len(ran), sum(c.error is None for c in ran)
    return {
        "id": question.id,
        "split": question.split,
        "level": question.level,
        "config": config,
        "correct": check(question, answer_text),
        "expected": {a.name: a.expected_text() for a in question.answers},
        "reply": reply[-600:],
        "value": None if value is None else str(value)[:300],
        "steps": steps,
        "cells": cells,
        "ok_cells": ok_cells,
        "no_code": cells == 0,
        "made_up": made_up(answer_text, ran),
        "step_limit": "MaxIterationsError" in (error or "") or at_limit == "steps",
        "at_limit": at_limit,
        "seconds": round(time.perf_counter() - t0, 1),
        "error": error,
        "cells_run": [{"code": c.code, "out": c.stdout[-1000:], "error": c.error} for c in ran]
        if transcript
        else None,
        "said": said if transcript else None,
    }


@dataclass(frozen=True)
class Cell:
    """What the harness keeps of a cell (the attributes the answer tracing reads)."""

    code: str
    stdout: str
    error: str | None
    final_answer: Any
    value: str | None

    @classmethod
    def of(cls, ev: ToolCallResult) -> Cell:
        """The cell of an ``execute`` result."""
        execution = ev.execution or {}
        value = execution.get("value")
        return cls(
            code=str(ev.tool_kwargs.get("code", "")),
            stdout=str(execution.get("stdout", "")),
            error=ev.tool_output.content[-300:] if ev.tool_output.is_error else None,
            final_answer=execution.get("final_answer"),
            value=None if value is None else str(value),
        )


def made_up(answer: str, cells: list[Cell]) -> list[str]:
    """The ``@name[value]`` tokens of the answer whose value no successful cell printed."""
    from codeact.agents._trace import computed_texts, traces

    texts = computed_texts(cells)  # type: ignore[arg-type]
    return [f"@{n}[{v}]" for n, v in found_answers_all(answer) if not traces(v, texts)]


def found_answers_all(text: str) -> list[tuple[str, str]]:
    """Every ``@name[value]`` token (repeats kept)."""
    import re

    return re.findall(r"@(\w+)\[([^\]\n]*)\]", text or "")


def _limit_answer(question: str, cells: list[Cell], exc: Exception) -> tuple[str, str | None]:
    """What ``codeact run`` reports when a run stops at a limit: the best traced answer (the
    code before issue 29 had none)."""
    try:
        from codeact.agents.validators import best_traced_answer  # type: ignore[attr-defined]
    except ImportError:
        return "", None
    limit = {"MaxIterationsError": "steps", "RunTimeoutError": "time"}.get(type(exc).__name__)
    if limit is None:
        return "", None
    return best_traced_answer(question, cells) or "", limit


def _append(path: str, row: dict[str, Any]) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")


def summarise(rows: list[dict[str, Any]]) -> None:
    """One line per configuration: exactly right (and by level), answers without code, answers
    with a made-up placeholder value, runs at the step limit, median steps and times."""
    print(
        f"\n{'config':12} {'n':>3} {'right':>10} {'easy':>6} {'medium':>7} {'hard':>6} "
        f"{'no code':>8} {'made up':>8} {'at limit':>8} {'med steps':>9} {'med s':>7} {'max s':>7}"
    )
    for config in dict.fromkeys(r["config"] for r in rows):
        mine = [r for r in rows if r["config"] == config]
        right = sum(r["correct"] for r in mine)
        levels = {
            lv: f"{sum(r['correct'] for r in mine if r['level'] == lv)}/"
            f"{sum(r['level'] == lv for r in mine)}"
            for lv in ("easy", "medium", "hard")
        }
        print(
            f"{config:12} {len(mine):3d} {right:4d} ({right / len(mine):3.0%}) "
            f"{levels['easy']:>6} {levels['medium']:>7} {levels['hard']:>6} "
            f"{sum(r['no_code'] for r in mine):8d} {sum(bool(r.get('made_up')) for r in mine):8d} "
            f"{sum(bool(r.get('step_limit')) for r in mine):8d} "
            f"{statistics.median(r['steps'] for r in mine):9.1f} "
            f"{statistics.median(r['seconds'] for r in mine):7.1f} "
            f"{max(r['seconds'] for r in mine):7.1f}"
        )


def every_question() -> tuple[dict[str, bytes], list[Question]]:
    """Every split's files and questions (answers computed from those files)."""
    files = {**generate_files(), **generate_styled_files(), **generate_fresh_files()}
    files |= generate_fresh2_files() | generate_fresh3_files() | generate_fresh4_files()
    files |= generate_fresh5_files() | generate_fresh6_files() | generate_fresh7_files()
    files |= generate_fresh8_files() | generate_fresh9_files() | generate_fresh10_files()
    files |= generate_fresh11_files() | generate_fresh12_files() | generate_fresh13_files()
    files |= generate_fresh14_files() | generate_fresh15_files() | generate_fresh16_files()
    files |= generate_fresh17_files() | generate_fresh18_files() | generate_fresh19_files()
    files |= generate_fresh20_files() | generate_fresh21_files() | generate_fresh22_files()
    files |= generate_fresh23_files()
    questions = build_questions(files) + build_styled_questions(files)
    questions += build_fresh_questions(files) + build_fresh2_questions(files)
    questions += build_fresh3_questions(files) + build_fresh4_questions(files)
    questions += build_fresh5_questions(files) + build_fresh6_questions(files)
    questions += build_fresh7_questions(files) + build_fresh8_questions(files)
    questions += build_fresh9_questions(files) + build_fresh10_questions(files)
    questions += build_fresh11_questions(files) + build_fresh12_questions(files)
    questions += build_fresh13_questions(files) + build_fresh14_questions(files)
    questions += build_fresh15_questions(files) + build_fresh16_questions(files)
    questions += build_fresh17_questions(files) + build_fresh18_questions(files)
    questions += build_fresh19_questions(files) + build_fresh20_questions(files)
    questions += build_fresh21_questions(files) + build_fresh22_questions(files)
    questions += build_fresh23_questions(files)
    return files, questions


async def main_async(args: argparse.Namespace) -> None:
    """Every selected question under every selected configuration."""
    files, questions = every_question()
    questions = [q for q in questions if args.split in ("all", q.split)]
    if args.only:
        questions = [q for q in questions if args.only in q.id]
    if args.ids:  # exactly these questions, in this order
        by_id = {q.id: q for q in questions}
        questions = [by_id[i] for i in args.ids.split(",") if i in by_id]
    if args.skip:
        questions = [q for q in questions if args.skip not in q.id]
    if args.level:
        questions = [q for q in questions if q.level == args.level]
    questions = questions[: args.limit] if args.limit else questions
    llm = infer_llm(args.model, progress=lambda m: print(m, file=sys.stderr), threads=args.threads)
    rows = []
    async with llm:
        for config in args.config or ["baseline"]:
            for i, q in enumerate(questions, 1):
                row = await ask(
                    llm, q, files, config, args.max_steps, args.timeout or None, args.transcript
                )
                rows.append(row)
                mark = "ok " if row["correct"] else "BAD"
                print(
                    f"[{config} {i}/{len(questions)}] {mark} {q.id:28} steps={row['steps']} "
                    f"cells={row['cells']} {row['seconds']}s",
                    file=sys.stderr,
                    flush=True,
                )
                if args.out:
                    _append(args.out, row)
    summarise(rows)


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="local", help="model spec (codeact.llms.infer_llm)")
    parser.add_argument(
        "--split",
        choices=["tune", "heldout", "fresh", *(f"fresh{n}" for n in range(2, 24)), "all"],
        default="heldout",
        help="fresh: twelve questions never used to tune (benchmarks/answer_data_fresh.py); "
        "fresh2: twenty more (benchmarks/answer_data_fresh2.py); fresh3: twenty more "
        "(benchmarks/answer_data_fresh3.py); fresh4: twenty more "
        "(benchmarks/answer_data_fresh4.py); fresh5: twenty more "
        "(benchmarks/answer_data_fresh5.py); fresh6: twenty more, one joining two files "
        "(benchmarks/answer_data_fresh6.py); fresh7: twenty more, two joining two files "
        "(benchmarks/answer_data_fresh7.py); fresh8: twenty more, written blind, three joining two "
        "files (benchmarks/answer_data_fresh8.py); fresh9: twenty more, written blind, three "
        "joining two files (benchmarks/answer_data_fresh9.py); fresh10: twenty more, written "
        "blind, three joining two files (benchmarks/answer_data_fresh10.py); fresh11: twenty more, "
        "written blind, three joining two files (benchmarks/answer_data_fresh11.py); fresh12: "
        "twenty more, written blind, three joining two files (benchmarks/answer_data_fresh12.py); "
        "fresh13: twenty more, written blind, three joining two files "
        "(benchmarks/answer_data_fresh13.py); fresh14: twenty more, written blind, three joining "
        "two files (benchmarks/answer_data_fresh14.py); fresh15: twenty more, written blind, three "
        "joining two files (benchmarks/answer_data_fresh15.py); fresh16: twenty more, written "
        "blind, three joining two files (benchmarks/answer_data_fresh16.py); fresh17: twenty more, "
        "written blind, three joining two files (benchmarks/answer_data_fresh17.py); fresh18: "
        "twenty more, written blind, three joining two files (benchmarks/answer_data_fresh18.py); "
        "fresh19: twenty more, written blind, three joining two files "
        "(benchmarks/answer_data_fresh19.py); fresh20: twenty more, written blind, three joining "
        "two files (benchmarks/answer_data_fresh20.py); fresh21: twenty more, written blind, three "
        "joining two files (benchmarks/answer_data_fresh21.py); fresh22: twenty more, written "
        "blind, three joining two files (benchmarks/answer_data_fresh22.py); fresh23: twenty "
        "more, written blind, three joining two files (benchmarks/answer_data_fresh23.py)",
    )
    parser.add_argument("--config", action="append", choices=list(CONFIGS))
    parser.add_argument("--skip", default="", help="questions whose id contains this are left out")
    parser.add_argument("--level", choices=["easy", "medium", "hard"], help="one level only")
    parser.add_argument(
        "--threads", type=int, default=None, help="the embedded model's threads (default: cores)"
    )
    parser.add_argument("--limit", type=int, default=0, help="first N questions only")
    parser.add_argument("--only", default="", help="questions whose id contains this")
    parser.add_argument("--ids", default="", help="exactly these question ids (comma-separated)")
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument("--transcript", action="store_true", help="keep each cell in --out")
    parser.add_argument(
        "--timeout", type=float, default=1800, help="seconds per question, as codeact run (0: none)"
    )
    parser.add_argument("--out", help="append one JSON line per question here")
    anyio.run(main_async, parser.parse_args())


if __name__ == "__main__":
    main()
