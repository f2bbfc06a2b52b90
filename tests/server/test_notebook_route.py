"""``POST /notebook`` over real HTTP: a thread as a Jupyter notebook, for its owner only (the
rules of ``/history``), with its figure, its failed cell, its uploads, a handoff, and a huge
output cut to size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from codeact import CodeActAgent
from codeact.executors.restricted import RestrictedExecutor
from codeact.llms import ScriptedLLM
from codeact.server import MemoryStore, create_app
from tests.server.test_playground_routes import by_name, post, upload

nbformat = pytest.importorskip("nbformat")

SALES = Path(__file__).resolve().parents[2] / "examples" / "data" / "sales.csv"
PLOT = (
    "<execute>\nimport matplotlib.pyplot as plt\nrows = open('sales.csv').read().splitlines()\n"
    "print(len(rows), 'rows')\nplt.plot([1, 2, 3], [3, 1, 2])\nplt.show()\n</execute>"
)


def agent(replies: list[str]) -> CodeActAgent:
    return CodeActAgent(
        llm=ScriptedLLM(replies, function_calling=False, model_name="scripted-serve"),
        executor=lambda: RestrictedExecutor(
            isolation="process", allowed_modules=["matplotlib", "numpy"], timeout=60
        ),
    )


def ask(url: str, thread: str, text: str, user: str | None = "alice") -> None:
    payload = {
        "threadId": thread,
        "runId": f"r-{text}",
        "messages": [{"role": "user", "content": text}],
    }
    headers = {"Authorization": f"Bearer {user}"} if user else {}
    r = httpx.post(url + "/", json=payload, headers=headers, timeout=60)
    assert r.status_code == 200 and "RUN_FINISHED" in r.text, r.text


def notebook(r: httpx.Response) -> Any:
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/x-ipynb+json"
    nb = nbformat.reads(r.text, as_version=4)
    nbformat.validate(nb)
    return nb


def test_the_owner_downloads_the_thread_and_no_one_else(serve: Any) -> None:
    fail = "<execute>\nprint('before')\n1/0\n</execute>"
    replies = [PLOT, fail, "There are 11 rows.", "There are 11 rows."]  # (asked again)
    srv = serve(create_app(agent(replies), store=MemoryStore(), authenticate=by_name))
    assert (
        post(srv.url, "/files/upload", upload("t/1", "sales.csv", SALES.read_bytes())).status_code
        == 200
    )
    ask(srv.url, "t/1", "How many rows?")
    r = post(srv.url, "/notebook", {"threadId": "t/1"})
    nb = notebook(r)
    assert r.headers["content-disposition"] == 'attachment; filename="t_1.ipynb"'
    meta = nb.metadata.codeact
    assert (meta["thread_id"], meta["model"], meta["files"]) == (
        "t/1",
        "scripted-serve",
        ["sales.csv"],
    )
    assert meta["executor"] == "restricted"
    assert f"FILES = {{'sales.csv': {SALES.stat().st_size}}}" in nb.cells[2].source
    plot, failed = [c for c in nb.cells if c.cell_type == "code" and "codeact" in c.metadata]
    assert plot.outputs[0].text == "11 rows\n"
    assert plot.outputs[1].output_type == "display_data" and "image/png" in plot.outputs[1].data
    assert failed.outputs[-1].ename == "ZeroDivisionError"
    assert failed.metadata["tags"] == ["raises-exception"]
    assert nb.cells[-1].source == "**Answer:**\n\nThere are 11 rows."
    # the rules of /history: another user sees no such thread, nobody anonymous gets in
    assert post(srv.url, "/notebook", {"threadId": "t/1"}, "bob").status_code == 404
    assert post(srv.url, "/notebook", {"threadId": "t/1"}, None).status_code == 401
    assert post(srv.url, "/notebook", {"threadId": "nope"}).status_code == 404
    assert post(srv.url, "/notebook", {"thread": "t/1"}).status_code == 400
    form = httpx.post(
        srv.url + "/notebook",
        content=b"threadId=t",
        headers={
            "Authorization": "Bearer alice",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    assert form.status_code == 415


def test_a_handoff_thread(serve: Any) -> None:
    from tests.playground.agents import handoff

    srv = serve(create_app(handoff(), store=MemoryStore()))
    ask(srv.url, "h", "are the numbers fine?", None)
    nb = notebook(post(srv.url, "/notebook", {"threadId": "h"}, None))
    text = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert "*Handed the conversation to **Analyst**: numbers*" in text
    assert text[-1] == "**Analyst — answer:**\n\nAnalyst here: the numbers look fine."
    assert nb.metadata.codeact["executor"] == "unknown"  # these agents run no code


def test_a_huge_output_is_cut_not_shipped(serve: Any) -> None:
    flood = "<execute>\nfor i in range(400_000):\n    print('line', i)\n</execute>"
    srv = serve(create_app(agent([flood, "done"]), store=MemoryStore()))
    ask(srv.url, "big", "flood", None)
    r = post(srv.url, "/notebook", {"threadId": "big"}, None)
    nb = notebook(r)
    assert len(r.content) < 300_000, len(r.content)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and "codeact" in c.metadata]
    shown = "".join(o.get("text", "") for o in cell.outputs)
    assert "truncated" in shown or "cut" in shown
