"""Small helpers shared by the tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from codeact.agents import RunHandler
from codeact.events import Event, ToolCallResult


async def collect(handler: RunHandler) -> list[Event]:
    """All events of a run, checking the invariants every stream must keep."""
    events = [ev async for ev in handler.stream_events()]
    assert [e.seq for e in events] == list(range(len(events))), "seq must count up by one"
    assert all(e.run_id == handler.run_id for e in events)
    terminal = [e for e in events if e.type.startswith("run_")]
    assert len(terminal) == 1 and events[-1] is terminal[0], "exactly one terminal event, last"
    stamps = [e.timestamp for e in events]
    assert stamps == sorted(stamps)
    return events


async def run_one_cell(
    files: dict[str, bytes], cell: str, question: str, answer: str = "done"
) -> ToolCallResult:
    """What the agent returns for one cell a scripted model writes (then ``answer``), run in
    a RestrictedExecutor allowing pandas and numpy, with ``files`` uploaded."""
    import warnings

    from codeact import CodeActAgent, RestrictedExecutor
    from codeact.llms import ScriptedLLM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = RestrictedExecutor(allowed_modules=["pandas", "numpy"])
    llm = ScriptedLLM([f"<execute>\n{cell}\n</execute>", answer], function_calling=False)
    async with ex:
        for name, data in files.items():
            await ex.upload(name, data)
        events = await collect(CodeActAgent(llm=llm, executor=ex).run(question))
    (result,) = [e for e in events if isinstance(e, ToolCallResult) and e.tool_name == "execute"]
    return result


async def run_scripted(
    files: dict[str, bytes], question: str, replies: list[str], validators: list[Any]
) -> tuple[list[str], Any]:
    """Run a CodeAct agent whose model says ``replies`` on ``question`` (``files`` uploaded
    to a RestrictedExecutor allowing pandas and numpy; ``validators`` check its answers):
    what each ``execute`` call returned, in order, and the scripted model (its requests)."""
    events, llm = await scripted_events(files, question, replies, validators)
    results = [e for e in events if isinstance(e, ToolCallResult) and e.tool_name == "execute"]
    return [str(e.tool_output.content) for e in results], llm


async def scripted_events(
    files: dict[str, bytes],
    question: str,
    replies: list[str],
    validators: list[Any],
    max_iterations: int = 20,
) -> tuple[list[Event], Any]:
    """Every event of ``run_scripted``'s run (with a ``max_iterations`` step limit), and the
    scripted model."""
    import warnings

    from codeact import CodeActAgent, RestrictedExecutor
    from codeact.llms import ScriptedLLM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = RestrictedExecutor(allowed_modules=["pandas", "numpy"])
    llm = ScriptedLLM(replies, function_calling=False)
    async with ex:
        for name, data in files.items():
            await ex.upload(name, data)
        agent = CodeActAgent(
            llm=llm, executor=ex, answer_validators=validators, max_iterations=max_iterations
        )
        events = await collect(agent.run(question))
    return events, llm


def kinds(events: list[Event]) -> list[str]:
    """The event types, with AgentStream runs collapsed to one entry."""
    out: list[str] = []
    for e in events:
        if e.type == "agent_stream" and out and out[-1] == "agent_stream":
            continue
        out.append(e.type)
    return out


def wait_until(check: Callable[[], object], what: str, timeout: float = 120.0) -> object:
    """Poll ``check`` until it returns something true (generous: the machine may be busy)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"after {timeout} s still waiting for {what}")


def process_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


#: A host-side tool a busy cell calls first, so a test knows (from the host's stdout) that the
#: cell is running: ``from tools import started; started('name')``.
STARTED_TOOL = '''
def started(where: str) -> str:
    """Says that a busy cell runs."""
    print("STARTED", where, flush=True)
    return "ok"
'''


def read_until_started(stream: IO[str], *names: str, stderr: Path | None = None) -> None:
    """Read ``stream`` until each of ``names`` said ``STARTED`` (see ``STARTED_TOOL``);
    ``stderr``: the file the host process writes its errors to, shown if it ends first."""
    waiting = set(names)
    seen: list[str] = []
    for line in stream:
        seen.append(line)
        if line.startswith("STARTED "):
            waiting.discard(line.split()[1])
            if not waiting:
                return
    said = stderr.read_text(errors="replace")[-4000:] if stderr is not None else "(not kept)"
    raise AssertionError(
        f"the host process ended before {sorted(waiting)} started\n"
        f"its stdout:\n{''.join(seen)[-2000:]}\nits stderr:\n{said}"
    )


def exec_with_files(files: dict[str, bytes], *codes: str) -> list[str]:
    """What each of ``codes`` prints, run in turn with plain ``exec`` (no sandbox: for a
    rule's runnable example) in a fresh directory holding ``files``."""
    import contextlib
    import io
    import os
    import tempfile

    printed, cwd = [], os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        for name, data in files.items():
            Path(d, name).write_bytes(data)
        os.chdir(d)
        try:
            for code in codes:
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    exec(code, {})
                printed.append(out.getvalue().strip())
        finally:
            os.chdir(cwd)
    return printed


def question_of(asked: str, said: str, files: dict[str, bytes]) -> str:
    """A benchmark-style question: ``asked``, its constraints ``said`` and the files note."""
    from codeact.agents.code import describe_files

    return f"Question: {asked}\nConstraints: {said}\n\n{describe_files(files)}"


def rule_note(question: str, code: str, stdout: str = "1") -> str | None:
    """What the answer rules (``rules_validator``, as ``codeact run`` uses them) tell the
    model of one successful cell's ``code``, or None when they pass it."""
    from codeact.agents.validators import AnswerCandidate, CellRun, ModelRetry, rules_validator

    cell = CellRun(code=code, stdout=stdout)
    try:
        rules_validator()(AnswerCandidate(text="@x[1]", question=question, cells=(cell,)))
    except ModelRetry as exc:
        return str(exc)
    return None
