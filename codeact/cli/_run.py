"""``codeact run``: upload files, run a CodeActAgent, show live progress, print the answer."""

from __future__ import annotations

import argparse
import signal
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from codeact._advice import (
    resolve_timeout,
    step_limit_advice,
    timeout_advice,
)
from codeact._signals import exit_code, interruptible
from codeact.agents.code import CodeActAgent, describe_files
from codeact.agents.validators import CellRun, best_traced_answer, cell_run, jsonable, trace_answer
from codeact.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_USAGE,
    MODEL_HELP,
    add_mcp_config_option,
    add_ray_option,
    add_sandbox_options,
    add_timeout_option,
    elapsed,
    make_llm,
    model_spec,
    print_json,
    read_mcp_config,
    reap_crashed_sessions,
    sandbox_spec,
)
from codeact.cli._progress import RunProgress
from codeact.context import Context
from codeact.errors import (
    CodeActError,
    MaxIterationsError,
    RunCancelledError,
    RunTimeoutError,
    UserError,
)
from codeact.events import AgentOutput, ToolCallResult
from codeact.executors import CodeExecutor
from codeact.executors.restricted import UnsandboxedWarning


def add_parser(sub: Any) -> None:
    """Add ``run`` and its options to the subcommands."""
    run = sub.add_parser("run", help="solve a task with a CodeAct agent")
    run.add_argument("question", help="the task, in plain words")
    run.add_argument(
        "--file",
        "-f",
        action="append",
        default=[],
        metavar="PATH",
        help="a file to put in the sandbox's working directory (repeatable)",
    )
    add_sandbox_options(run)
    add_ray_option(run)
    add_mcp_config_option(run)
    run.add_argument("--model", default=None, help=MODEL_HELP)
    run.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (/v1 URL)")
    run.add_argument("--max-steps", type=int, default=10, help="LLM steps allowed (default 10)")
    run.add_argument(
        "--answer-at-limit",
        action="store_true",
        help="at --max-steps, ask the model for a final answer from what it found "
        "(default: stop with an error)",
    )
    add_timeout_option(run, "run")
    run.add_argument(
        "--cell-timeout", type=float, default=60, help="seconds per code block (default 60)"
    )
    run.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    run.add_argument(
        "--notebook",
        default=None,
        metavar="OUT.ipynb",
        help="also write the run as a Jupyter notebook that re-runs (needs nbformat)",
    )
    run.add_argument(
        "--require-execution",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="accept an answer only after code ran without error (default: on with --file)",
    )
    run.add_argument(
        "--lenient-code",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run ```python fences when a reply has no <execute> block "
        "(default: on for the embedded model)",
    )
    run.add_argument(
        "--self-check",
        action="store_true",
        help="before accepting an answer, have the model rate its code against the question "
        "once (one forward pass; a low rating sends it back to re-check)",
    )


def run_command(args: argparse.Namespace) -> int:
    """Run the task; returns the exit code (130 after Ctrl-C, 143 after SIGTERM: either one
    cancels the run and removes the sandbox first)."""
    try:
        return anyio.run(_interruptible, args)
    except KeyboardInterrupt:  # before the handlers were in place
        print("\nInterrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED


async def _interruptible(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(stderr=True, quiet=args.json)
    code, signum = await interruptible(
        lambda: _run(args, console),
        on_signal=lambda _: console.print("\n[dim]Stopping: cancelling the run...[/dim]"),
    )
    if signum is None:
        assert code is not None
        return code
    word = "Interrupted" if signum == signal.SIGINT else "Terminated"
    console.print(f"{word}: the run was cancelled and the sandbox removed.", highlight=False)
    _fail_json(args, "interrupted", f"{word} by signal {signum}")
    return exit_code(signum)


async def _run(args: argparse.Namespace, console: Any) -> int:
    files: dict[str, bytes] = {}
    try:
        if args.notebook:
            from codeact.notebooks import check_notebook_path

            check_notebook_path(args.notebook)
    except UserError as exc:
        console.print(f"[red]{exc}[/red]")
        _fail_json(args, "usage", str(exc))
        return EXIT_USAGE
    for f in args.file:
        path = Path(f)
        if not path.is_file():
            console.print(f"[red]No such file: {f}[/red]")
            _fail_json(args, "usage", f"No such file: {f}")
            return EXIT_USAGE
        files[path.name] = path.read_bytes()
    try:
        say = lambda msg: console.print(f"[dim]{msg}[/dim]")  # noqa: E731
        await anyio.to_thread.run_sync(reap_crashed_sessions, say)
        llm = make_llm(args.model, base_url=args.base_url, say=say)
        spec = sandbox_spec(args)
        summary, warning = spec.describe()
        console.print(f"[dim]{summary}[/dim]", highlight=spec.executor == "restricted")
        if warning:
            console.print(f"[yellow]warning: {warning}[/yellow]")
        executor = spec()
        mcp_servers = read_mcp_config(args.mcp_config)
    except UserError as exc:
        console.print(f"[red]{exc}[/red]")
        _fail_json(args, "usage", str(exc))
        return EXIT_USAGE
    async with llm:
        agent = CodeActAgent(
            llm=llm,
            executor=lambda: executor,
            max_iterations=args.max_steps,
            mcp_servers=mcp_servers,
            early_stopping_method="generate" if args.answer_at_limit else "force",
            **answer_options(args, llm, files),
        )
        return await _solve(args, console, agent, executor, files)


def answer_options(args: argparse.Namespace, llm: Any, files: dict[str, bytes]) -> dict[str, Any]:
    """CodeActAgent's answer options for a CLI run (code first when files are given)."""
    from codeact.agents import command_line_options

    require = bool(files) if args.require_execution is None else args.require_execution
    return command_line_options(
        llm,
        require_execution=require,
        lenient_code=args.lenient_code,
        self_check=args.self_check,
    )


async def _solve(
    args: argparse.Namespace,
    console: Any,
    agent: CodeActAgent,
    executor: CodeExecutor,
    files: dict[str, bytes],
) -> int:
    ctx = Context()
    code = await _solve_in(ctx, args, console, agent, executor, files)
    if args.notebook and ctx.memory.get_all():
        from codeact.notebooks import write_notebook

        try:
            path = write_notebook(
                ctx,
                args.notebook,
                files=files,
                data_dirs=sorted({str(Path(f).parent) for f in args.file}),
                model=agent.llm.metadata.model_name,
                executor=_executor_name(args),
            )
        except UserError as exc:
            console.print(f"[red]{exc}[/red]")
            return EXIT_USAGE
        console.print(f"[dim]Notebook written to {path}[/dim]")
    return code


def _executor_name(args: argparse.Namespace) -> str:
    if args.executor == "restricted":
        return f"restricted ({args.isolation})"
    return str(args.executor)


async def _solve_in(
    ctx: Context,
    args: argparse.Namespace,
    console: Any,
    agent: CodeActAgent,
    executor: CodeExecutor,
    files: dict[str, bytes],
) -> int:
    question = args.question
    note = describe_files(files)
    if note:
        question = f"{question}\n\n{note}"
    async with ctx:
        try:
            await agent.prepare(ctx)  # MCP servers: their modules must exist when it starts
            executor.add_tools(agent.context_tools(ctx))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UnsandboxedWarning)  # summarised above
                await executor.start()
            for name, data in files.items():
                await executor.upload(name, data)
        except CodeActError as exc:
            console.print(f"[red]Could not start the sandbox: {exc}[/red]")
            _fail_json(args, "usage", str(exc))
            return EXIT_USAGE
        view = RunProgress(console)
        timeout = resolve_timeout(args.timeout, model_spec(args.model))
        handler = agent.run(question, ctx=ctx, timeout=timeout)
        cells: list[CellRun] = []
        t0 = time.perf_counter()
        try:
            with view:
                async for ev in handler.stream_events():
                    view.show(ev)
                    if isinstance(ev, ToolCallResult) and ev.tool_name == "execute":
                        cells.append(cell_run(ev))
            result = await handler
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await handler.cancel()
            raise
        except RunTimeoutError as exc:
            _stopped(args, console, "time", timeout_advice(exc.timeout), view, question, cells)
            return EXIT_TIMEOUT
        except MaxIterationsError as exc:
            _stopped(args, console, "steps", step_limit_advice(exc.limit), view, question, cells)
            return EXIT_FAILED
        except (RunCancelledError, CodeActError) as exc:
            console.print(f"[red]The run failed: {exc}[/red]")
            _fail_json(args, "failed", str(exc), view.steps)
            return EXIT_FAILED
    raw = result.raw if isinstance(result.raw, dict) else {}
    if raw.get("at_limit") == "steps":  # the last step answered from printed values
        _stopped(args, console, "steps", step_limit_advice(args.max_steps), view, question, cells)
        return EXIT_FAILED
    _report(
        args, console, result, view, elapsed(t0), agent.llm.metadata.model_name, question, cells
    )
    return EXIT_OK


def _stopped(
    args: argparse.Namespace,
    console: Any,
    limit: str,
    message: str,
    view: RunProgress,
    question: str,
    cells: list[CellRun],
) -> None:
    """A run stopped at its step or time limit: the advice, then the best answer made only of
    values the code printed, if any (on stdout; with ``--json`` in the failure object)."""
    failed = "" if limit == "time" else "The run failed: "
    console.print(f"[red]{failed}{message}[/red]", highlight=False)
    kind = "timeout" if limit == "time" else "failed"
    _fail_json(args, kind, message, view.steps, question, cells, limit)
    answer = best_traced_answer(question, cells)
    if args.json or not answer:
        return
    console.print(
        f"[yellow]The run stopped at its {limit} limit. The best answer made only of values "
        "the code printed (check it):[/yellow]"
    )
    print(answer)


def _report(
    args: argparse.Namespace,
    console: Any,
    result: AgentOutput,
    view: RunProgress,
    total: float,
    model: str,
    question: str,
    cells: list[CellRun],
) -> None:
    traced = trace_answer(question, result.response.text or "", cells)
    computed = view.computed and all(t.computed for t in traced.values())
    if args.json:
        print_json(
            {
                "ok": True,
                "answer": result.response.text,
                "value": result.value,
                "steps": view.steps,
                "computed": computed,
                "answers": jsonable(traced),
                "timings": {
                    "total_s": total,
                    "llm_s": round(view.llm_s, 3),
                    "code_s": round(view.code_s, 3),
                },
                "model": model,
            }
        )
    else:
        console.rule("Answer")
        print(result.response.text)
        if not view.computed:
            console.print(
                "[yellow]Note: no code ran without an error, so this answer was not computed "
                "from the data; check it (or ask again).[/yellow]"
            )
        elif not computed:
            names = ", ".join(f"@{n}" for n, t in traced.items() if not t.computed)
            console.print(
                f"[yellow]Note: no cell printed the value of {names}; check it.[/yellow]",
                highlight=False,
            )
        console.print(
            f"[dim]{len(view.steps)} code step(s), {total:.1f} s total "
            f"(model {view.llm_s:.1f} s, code {view.code_s:.2f} s)[/dim]"
        )


def _fail_json(
    args: argparse.Namespace,
    kind: str,
    message: str,
    steps: list[dict[str, Any]] | None = None,
    question: str = "",
    cells: list[CellRun] | None = None,
    limit: str | None = None,
) -> None:
    """The failure object of ``--json``; at a step or time limit it carries the best answer
    made of printed values (``answer``, ``answers``, ``at_limit``), when there is one."""
    if not args.json:
        return
    out: dict[str, Any] = {"ok": False, "error": kind, "message": message, "steps": steps or []}
    answer = best_traced_answer(question, cells or []) if limit else None
    if answer is not None:
        traced = trace_answer(question, answer, cells or [])
        out.update(answer=answer, answers=jsonable(traced), computed=True, at_limit=limit)
    print_json(out)
