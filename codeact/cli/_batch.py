"""``codeact batch TASKS --out RESULTS``: run many tasks with progress, resume and a summary.

The ``codeact`` command registers it with ``add_parser(subparsers)`` and calls ``main(args)``;
it drives ``codeact.batch`` through its public names. Exit codes: 0 every task answered; 1 some
failed or timed out; 2 usage or setup error; 130 interrupted by Ctrl-C, 143 by SIGTERM (either
way running tasks are cancelled, their sandboxes removed, and finished results are kept for the
next run to resume from).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from codeact._advice import resolve_timeout
from codeact.cli._common import (
    add_sandbox_options,
    add_timeout_option,
    reap_crashed_sessions,
    sandbox_spec,
)
from codeact.errors import UserError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130  # 143: SIGTERM


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``batch`` command to an ``argparse`` subparsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "batch",
        help="run many tasks (a JSON-lines file or a folder) with progress and resume",
        description="Run every task of a JSON-lines file (or one task per file of a folder) "
        "with a fresh agent and sandbox each; results are appended to --out as they finish, "
        "and tasks already there are skipped (resume).",
    )
    p.add_argument("tasks", help="tasks.jsonl, or a folder (one task per file, with --prompt)")
    p.add_argument("--out", "-o", required=True, metavar="PATH", help="results file (JSON lines)")
    p.add_argument("--prompt", default=None, help="the question for each file of a folder")
    p.add_argument(
        "--concurrency",
        "-j",
        type=int,
        default=None,
        help="tasks at once (default 4; with --ray: per node, default its CPUs)",
    )
    add_timeout_option(p, "task")
    p.add_argument(
        "--ray",
        default=None,
        metavar="auto|ADDRESS|local",
        help="run on a Ray cluster (auto: the one `ray start` made; local: start one)",
    )
    p.add_argument(
        "--retries",
        type=int,
        default=2,
        help="times a task whose Ray node died is retried elsewhere (default 2)",
    )
    p.add_argument(
        "--score",
        default=None,
        metavar="exact|contains|MODULE:FN",
        help="score each answer against the task's 'expected' and report accuracy",
    )
    p.add_argument(
        "--retry-failed",
        action="store_true",
        help="also rerun tasks whose earlier result failed or timed out",
    )
    p.add_argument(
        "--notebooks",
        default=None,
        metavar="DIR",
        help="also write each task's run as a Jupyter notebook in DIR (needs nbformat)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="only the summary")
    _add_agent_options(p)
    return p


def _add_agent_options(p: argparse.ArgumentParser) -> None:
    """The model and sandbox options, as in ``codeact run``."""
    p.add_argument(
        "--model",
        default=None,
        help="'local' (embedded model), a model name on an OpenAI-compatible server "
        "(OPENAI_BASE_URL), or scripted:FILE.json. Default: CODEACT_MODEL, else local",
    )
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (/v1 URL)")
    add_sandbox_options(p)
    p.add_argument("--max-steps", type=int, default=10, help="LLM steps per task (default 10)")
    p.add_argument("--cell-timeout", type=float, default=60, help="seconds per code block")
    p.add_argument(
        "--require-execution",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="accept an answer only after code ran without error "
        "(default: on when the tasks carry files)",
    )
    p.add_argument(
        "--lenient-code",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run ```python fences when a reply has no <execute> block "
        "(default: on for the embedded model)",
    )
    p.add_argument(
        "--self-check",
        action="store_true",
        help="before accepting an answer, have the model rate its code against the question "
        "once (one forward pass; a low rating sends it back to re-check)",
    )


def _model_name(args: argparse.Namespace) -> str:
    return str(args.model or os.environ.get("CODEACT_MODEL") or "local")


def _llm_factory(args: argparse.Namespace) -> tuple[Any, str]:
    """``(factory, scope)`` for ``--model``. Scripted replies are read here, on the driver."""
    from codeact.batch import ModelFactory, ScriptedFactory

    name = _model_name(args)
    if name.startswith("scripted:"):
        path = Path(name.split(":", 1)[1])
        try:
            replies = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise UserError(f"Cannot read scripted replies from {path}: {exc}") from exc
        if not isinstance(replies, list):
            raise UserError(f"{path}: scripted replies must be a JSON list")
        factory = ScriptedFactory(tuple(replies), name=f"scripted:{path.name}")
        try:
            factory()  # bad reply objects are a usage error now, not a failure of every task
        except ValueError as exc:
            raise UserError(f"Cannot read scripted replies from {path}: {exc}") from exc
        return factory, "task"
    return ModelFactory(name, args.base_url), "worker"


def _agent_factory(args: argparse.Namespace, tasks: list[Any] | None = None) -> Any:
    from codeact.batch import CodeActAgentFactory

    # --ray is the batch's cluster; sandboxes of --executor ray use the one connected to
    executor = sandbox_spec(args, ray_address=None)
    require = args.require_execution
    if require is None:
        require = any(t.files for t in tasks or [])
    return CodeActAgentFactory(
        executor, args.max_steps, require, args.lenient_code, self_check=args.self_check
    )


def _notebooks(args: argparse.Namespace, tasks: list[Any]) -> Any:
    """The writer of ``--notebooks DIR`` (checked and made before any task runs), or None."""
    if not args.notebooks:
        return None
    from codeact.cli._batch_notebooks import NotebookWriter
    from codeact.notebooks import check_notebook_path

    check_notebook_path(args.notebooks, folder=True)
    source = Path(args.tasks)
    model = args.model or os.environ.get("CODEACT_MODEL") or "local"
    executor = str(args.executor)
    if executor == "restricted":
        executor += f" ({args.isolation})"
    writer = NotebookWriter(
        args.notebooks, tasks, source if source.is_dir() else source.parent, model, executor
    )
    writer.prepare()
    return writer


def main(args: argparse.Namespace) -> int:
    """Run ``codeact batch``; returns the exit code."""
    from rich.console import Console

    from codeact.batch import load_score, load_tasks, read_results

    console = Console(stderr=True, soft_wrap=True)
    reap_crashed_sessions(lambda msg: console.print(f"[dim]{msg}[/dim]", highlight=False))
    try:
        if args.concurrency is not None and args.concurrency < 1:
            raise UserError("--concurrency must be at least 1")
        tasks = load_tasks(args.tasks, prompt=args.prompt)
        previous = read_results(args.out)
        done = {i for i, r in previous.items() if r.ok or not args.retry_failed}
        if {t.id for t in tasks} <= done:  # nothing to run: no model to load, no sandbox
            plan = _Plan(tasks, done, None, "worker", None, None)
            plan.previous = previous
            console.print("Every task already has a result in --out", highlight=False)
            return _finish(plan, [], None, 0, 0.0, console)
        score = load_score(args.score) if args.score else None
        llm_factory, scope = _llm_factory(args)
        agent_factory = _agent_factory(args, tasks)
        notebooks = _notebooks(args, tasks)
        if args.executor == "restricted" and not args.quiet:
            summary, warning = agent_factory.executor.describe()
            console.print(f"[dim]{summary}[/dim]", highlight=False)
            if warning:
                console.print(f"[yellow]warning: {warning}[/yellow]", highlight=False)
    except UserError as exc:
        console.print(f"[red]error: {exc}[/red]", highlight=False)
        return EXIT_USAGE
    known = {t.id for t in tasks}
    skip = done & known
    plan = _Plan(tasks, skip, llm_factory, scope, agent_factory, score)
    plan.previous = previous
    plan.notebooks = notebooks
    try:
        return anyio.run(_run, args, plan, console)
    except KeyboardInterrupt:  # a second Ctrl-C during the clean-up
        console.print("Interrupted.")
        return EXIT_INTERRUPTED


class _Plan:
    def __init__(
        self,
        tasks: list[Any],
        skip: set[str],
        llm_factory: Any,
        scope: str,
        agent_factory: Any,
        score: Any,
    ) -> None:
        self.tasks, self.skip = tasks, skip
        self.llm_factory, self.scope = llm_factory, scope
        self.agent_factory, self.score = agent_factory, score
        self.previous: dict[str, Any] = {}
        self.notebooks: Any = None


async def _run(args: argparse.Namespace, plan: _Plan, console: Any) -> int:
    if not args.ray:
        return await _run_batch(args, plan, console)
    from codeact.executors.ray import connect_ray

    try:
        ray = connect_ray(None if args.ray == "local" else args.ray)
    except UserError as exc:
        console.print(f"[red]error: {exc}[/red]", highlight=False)
        return EXIT_USAGE
    try:
        return await _run_batch(args, plan, console)
    finally:
        ray.shutdown()


def _make_batch(args: argparse.Namespace, plan: _Plan) -> Any:
    from codeact.batch import run_batch

    return run_batch(
        plan.tasks,
        plan.agent_factory,
        plan.llm_factory,
        backend="ray" if args.ray else "local",
        concurrency=args.concurrency,
        timeout=resolve_timeout(args.timeout, _model_name(args)),
        llm_scope=plan.scope,  # type: ignore[arg-type]
        score=plan.score,
        skip=plan.skip,
        max_retries=args.retries,
        ray_address=None if args.ray in (None, "local") else args.ray,
        keep_messages=plan.notebooks is not None,
    )


async def _run_batch(args: argparse.Namespace, plan: _Plan, console: Any) -> int:
    from codeact._signals import interruptible
    from codeact.batch import ResultsWriter
    from codeact.cli._batch_progress import BatchProgress

    batch = _make_batch(args, plan)
    got: list[Any] = []
    failure: list[BaseException] = []
    t0 = time.perf_counter()

    async def consume() -> None:
        async with anyio.create_task_group() as tg:
            with (
                ResultsWriter(args.out) as out,
                BatchProgress(batch.total, console=console, quiet=args.quiet) as view,
            ):
                tg.start_soon(_tick, batch, view)
                try:
                    async with batch:
                        async for result in batch:
                            out.write(result)
                            if plan.notebooks is not None:
                                plan.notebooks.write(result)
                            got.append(result)
                            view.finished(result, len(batch.running))
                except Exception as exc:  # the batch could not run (no model, no Ray node...)
                    failure.append(exc)
                tg.cancel_scope.cancel()

    _, signum = await interruptible(consume)
    for problem in plan.notebooks.errors if plan.notebooks is not None else []:
        console.print(f"[yellow]warning: {problem}[/yellow]", highlight=False)
    if failure:
        console.print(f"[red]error: {failure[0]}[/red]", highlight=False)
        return EXIT_USAGE
    return _finish(plan, got, signum, batch.total, time.perf_counter() - t0, console)


def _finish(
    plan: _Plan, got: list[Any], signum: int | None, total: int, took: float, console: Any
) -> int:
    from codeact._signals import exit_code
    from codeact.batch import summarize

    merged = {t.id: plan.previous[t.id] for t in plan.tasks if t.id in plan.previous}
    merged.update((r.id, r) for r in got)
    summary = summarize(merged.values(), elapsed_s=took, ran=len(got))
    if signum is not None:
        word = "Interrupted" if signum == signal.SIGINT else "Terminated"
        console.print(
            f"{word}: {total - len(got)} task(s) not finished (run again to resume); "
            "their sandboxes were removed."
        )
    for line in summary.lines():
        console.print(line, highlight=False)
    for line in _advice(merged.values()):
        console.print(f"[yellow]{line}[/yellow]", highlight=False)
    if signum is not None:
        return exit_code(signum)
    # The whole results file counts, not only this run: a rerun that resumes nothing after
    # failures still exits 1.
    everything = [merged.get(t.id) for t in plan.tasks]
    return EXIT_OK if all(r is not None and r.ok for r in everything) else EXIT_FAILED


def _advice(results: Any) -> list[str]:
    """What the flags can do about the failures in ``results``."""
    types = [r.error.type for r in results if r.error is not None]
    out = []
    if "RunTimeoutError" in types:
        out.append(
            f"{types.count('RunTimeoutError')} task(s) hit --timeout: run them again with "
            "--retry-failed and a larger --timeout (0 for no limit)."
        )
    if "MaxIterationsError" in types:
        out.append(
            f"{types.count('MaxIterationsError')} task(s) used every step: run them again with "
            "--retry-failed and a larger --max-steps."
        )
    return out


async def _tick(batch: Any, view: Any) -> None:
    while True:
        view.running(len(batch.running))
        await anyio.sleep(0.5)


def run(argv: list[str] | None = None) -> int:
    """``python -m codeact.cli._batch ...``: the command on its own (for tests and scripts)."""
    parser = argparse.ArgumentParser(prog="codeact")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return main(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(run())
