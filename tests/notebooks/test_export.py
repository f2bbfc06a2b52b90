"""The shape of exported notebooks, from typed transcripts (real ``ExecutionResult`` values):
markdown for the question and prose, code cells with Jupyter's output types, the files and
set-up cells, metadata, and the bounds and escaping that keep hostile or huge runs harmless."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest

from codeact import ChatMessage, ToolCallRequest, UserError
from codeact._execution import ExecutionError, ExecutionResult
from codeact.cli._batch_notebooks import notebook_name
from codeact.events import AgentOutput
from codeact.notebooks import (
    check_notebook_path,
    notebook_json,
    notebook_messages,
    to_notebook,
    write_notebook,
)

nbformat = pytest.importorskip("nbformat")

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()


def code_round(
    code: str, result: ExecutionResult, prose: str = "", name: str = ""
) -> list[ChatMessage]:
    call = ToolCallRequest(name="execute", arguments={"code": code})
    reply = ChatMessage.assistant(f"{prose}\n<execute>\n{code}\n</execute>", [call])
    reply.name = name or None
    return [reply, ChatMessage.tool(result.to_observation(), call.id, "execute", execution=result)]


def code_cells(nb: Any) -> list[Any]:
    return [c for c in nb.cells if c.cell_type == "code" and "codeact" in c.metadata]


def test_cells_outputs_and_metadata() -> None:
    table = {
        "columns": ["city", "units"],
        "index": ["0"],
        "rows": [["<b>Paris</b>", "33"]],
        "shape": [1, 2],
    }
    messages = [
        ChatMessage.system("You are an agent."),
        ChatMessage.user("Units per city?"),
        *code_round(
            "print('hi')\ndf",
            ExecutionResult(stdout="hi\n", value="  city units", tables=[table]),
            "Looking.",
        ),
        *code_round("plot()", ExecutionResult(images=[PNG], stderr="warn\n")),
        *code_round(
            "1/0",
            ExecutionResult(
                error=ExecutionError(
                    type="ZeroDivisionError",
                    message="division by zero",
                    traceback="Traceback...\nZeroDivisionError: division by zero",
                )
            ),
        ),
        ChatMessage.assistant("Paris sold the most."),
    ]
    nb = to_notebook(
        messages, files={"sales.csv": b"a,b\n1,2\n"}, model="m1", executor="restricted"
    )
    nbformat.validate(nb)
    assert nb.nbformat == 4
    assert nb.metadata.codeact["model"] == "m1" and nb.metadata.codeact["executor"] == "restricted"
    assert nb.metadata.codeact["version"] and nb.metadata.codeact["files"] == ["sales.csv"]
    text = json.dumps(nb)
    assert "You are an agent" not in text  # system messages are not the user's analysis
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert markdown[0].startswith("# Units per city?")
    assert "**User:**\n\nUnits per city?" in markdown and "Looking." in markdown
    assert markdown[-1] == "**Answer:**\n\nParis sold the most."
    assert not any("<execute>" in m for m in markdown)
    files = [c.source for c in nb.cells if c.cell_type == "code" and "FILES = " in c.source]
    assert len(files) == 1 and "{'sales.csv': 8}" in files[0]
    first, figure, failed = code_cells(nb)
    assert first.source == "print('hi')\ndf" and first.execution_count == 1
    stream, value = first.outputs
    assert (stream.output_type, stream.name, stream.text) == ("stream", "stdout", "hi\n")
    assert value.output_type == "execute_result" and value.execution_count == 1
    assert value.data["text/plain"] == "  city units"
    assert (
        "&lt;b&gt;Paris&lt;/b&gt;" in value.data["text/html"]
        and "<b>" not in value.data["text/html"]
    )
    assert [o.output_type for o in figure.outputs] == ["stream", "display_data"]
    assert figure.outputs[1].data["image/png"] == PNG
    assert (
        failed.outputs[0].output_type == "error" and failed.outputs[0].ename == "ZeroDivisionError"
    )
    assert failed.outputs[0].traceback[-1] == "ZeroDivisionError: division by zero"
    assert (
        failed.metadata["tags"] == ["raises-exception"] and failed.metadata.codeact["ok"] is False
    )
    assert "tags" not in first.metadata


def test_sandbox_only_tools_get_comments_and_runnable_stand_ins() -> None:
    code = "from tools import lookup\nprint('x')\nfinal_answer(lookup('a'))"
    nb = to_notebook(code_round(code, ExecutionResult(stdout="x\n", is_final_answer=True)))
    (cell,) = code_cells(nb)
    assert cell.source.startswith("# Sandbox-only: this cell called host tools (lookup)")
    assert "final_answer() ended the agent's run" in cell.source
    assert cell.metadata["tags"] == ["raises-exception"]
    setup = next(c.source for c in nb.cells if c.source.startswith("# Set-up"))
    namespace: dict[str, Any] = {}
    exec(setup, namespace)  # plain Python: the stand-ins work outside Jupyter too
    exec("final_answer(answer=42)", namespace)
    assert namespace["FINAL_ANSWER"] == 42
    with pytest.raises(NotImplementedError, match="lookup"):
        exec("from tools import lookup\nlookup('a')", namespace)


def test_handoff_tool_calls_and_agent_names_are_markdown_notes() -> None:
    handoff = ToolCallRequest(
        name="handoff", arguments={"to_agent": "Analyst", "reason": "numbers <b>"}
    )
    lookup = ToolCallRequest(name="lookup", arguments={"q": "x"})
    messages = [
        ChatMessage.user("How many?"),
        ChatMessage(role="assistant", content="", tool_calls=[handoff], name="Triage"),
        ChatMessage.tool("Handed off", handoff.id, "handoff"),
        ChatMessage(role="assistant", content="", tool_calls=[lookup], name="Analyst"),
        ChatMessage.tool("```\n42 ``` done", lookup.id, "lookup"),
        ChatMessage(role="assistant", content="It is 42.", name="Analyst"),
    ]
    nb = to_notebook(messages)
    nbformat.validate(nb)
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert "*Handed the conversation to **Analyst**: numbers \\<b\\>*" in md
    note = next(m for m in md if "lookup" in m)
    assert note.startswith('*Called the tool* `lookup` *with* `{"q": "x"}`')
    assert "````text\n```\n42 ``` done\n````" in note  # the result cannot close its fence
    assert md[-1] == "**Analyst — answer:**\n\nIt is 42."
    assert not code_cells(nb)


def test_a_huge_output_is_cut_with_a_note_and_figures_have_a_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from codeact.notebooks import _outputs

    monkeypatch.setattr(_outputs, "MAX_IMAGE_CHARS", 3 * len(PNG))
    flood = "x" * 50_000_000
    messages = code_round("print(x)", ExecutionResult(stdout=flood, stderr=flood, truncated=True))
    messages += code_round("plots()", ExecutionResult(images=[PNG] * 5))
    nb = to_notebook(messages)
    nbformat.validate(nb)
    size = len(notebook_json(nb))
    assert size < 200_000, size
    big, plots = code_cells(nb)
    assert "[output truncated in this notebook: it was 50000000 characters]" in big.outputs[0].text
    assert "the sandbox cut this cell's output" in big.outputs[2].text
    assert [o.output_type for o in plots.outputs].count("display_data") == 3
    assert "2 figure(s) were left out" in nb.cells[-1].source


def test_a_cell_the_run_never_finished_and_a_timeout() -> None:
    call = ToolCallRequest(name="execute", arguments={"code": "import time\ntime.sleep(99)"})
    slow = ExecutionResult(timed_out=True, restarted=True, duration_s=60.0)
    messages = [*code_round("while True: pass", slow), ChatMessage.assistant("", [call])]
    nb = to_notebook(messages)
    timed_out, unfinished = code_cells(nb)
    assert (
        "timed out in the sandbox after 60.0 s and the session was restarted"
        in timed_out.outputs[-1].text
    )
    assert timed_out.metadata["tags"] == ["raises-exception"]
    assert unfinished.source.startswith("# The run stopped before this cell ran.")
    assert unfinished.outputs == []


def test_sources_and_bad_input() -> None:
    from codeact import Context
    from codeact.batch import TaskResult

    ctx = Context()
    ctx.memory.put(ChatMessage.user("hi"))
    assert [m.text for m in notebook_messages(ctx)] == ["hi"]
    assert notebook_messages(ctx.memory) == notebook_messages([ChatMessage.user("hi")])
    with pytest.raises(UserError, match="pass the RunHandler"):
        to_notebook(AgentOutput(response=ChatMessage.assistant("x")))
    with pytest.raises(UserError, match="keep_messages=True"):
        to_notebook(TaskResult(id="t", status="ok"))
    with pytest.raises(UserError, match="Cannot make a notebook from int"):
        to_notebook(3)  # type: ignore[arg-type]
    kept = TaskResult(id="t", status="ok", messages=[ChatMessage.user("q")])
    assert "messages" not in kept.model_dump_json()  # never in a results file
    assert to_notebook(kept).cells[1].source == "**User:**\n\nq"


def test_notebook_paths(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="ends in .ipynb"):
        check_notebook_path(tmp_path / "out.txt")
    with pytest.raises(UserError, match="No folder"):
        check_notebook_path(tmp_path / "nowhere" / "out.ipynb")
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError, match="not a folder"):
        check_notebook_path(tmp_path / "file", folder=True)
    check_notebook_path(tmp_path / "ok.ipynb")
    assert notebook_name("units") == "units.ipynb"
    names = {notebook_name(i) for i in ("../evil/x", "..", "a/b", "a_b", "", "\u00e9t\u00e9")}
    assert len(names) == 6 and all("/" not in n and not n.startswith(".") for n in names)


def test_data_dir_points_at_the_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "sales.csv").write_bytes(b"a,b\n")
    out = tmp_path / "nb" / "x.ipynb"
    out.parent.mkdir()
    messages = [ChatMessage.user("q")]
    write_notebook(messages, out, files={"sales.csv": b"a,b\n"}, data_dirs=[tmp_path, data])
    assert "DATA_DIR = (NOTEBOOK_DIR / '../data')" in out.read_text()
    write_notebook(messages, out, files={"sales.csv": b"other size"}, data_dirs=[data])
    assert "DATA_DIR = (NOTEBOOK_DIR / '.')" in out.read_text()


def test_export_of_a_50_cell_thread_with_10_figures_is_fast_and_small() -> None:
    """The issue's measure: under 100 ms, no bigger than the figures plus a few KB a cell
    (a loose bound here on a shared machine; benchmarks/notebook_export.py prints numbers)."""
    from benchmarks.notebook_export import thread

    messages, figure_chars = thread(cells=50, figures=10)
    t0 = time.perf_counter()
    text = notebook_json(to_notebook(messages))
    took = time.perf_counter() - t0
    assert took < 1.0, took
    assert len(text) < figure_chars + 50 * 1024, (len(text), figure_chars)
