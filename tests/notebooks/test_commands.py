"""``codeact run --notebook`` and ``codeact batch --notebooks DIR``, run as a user runs them
(subprocesses, scripted model, real restricted executor)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.batch.test_cli import argv, make_tasks, run
from tests.cli.test_cli import DATA, codeact

nbformat = pytest.importorskip("nbformat")

CELL = "<execute>\nimport pandas as pd\nprint(pd.read_csv('sales.csv')['units'].sum())\n</execute>"


def code_sources(nb: object) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code" and "codeact" in c.metadata]  # type: ignore[attr-defined]


def test_run_writes_a_notebook_that_finds_the_file(tmp_path: Path) -> None:
    out = tmp_path / "out" / "run.ipynb"
    out.parent.mkdir()
    r = codeact(
        "run",
        "How many units?",
        "-f",
        str(DATA),
        "--notebook",
        str(out),
        replies=[CELL, "85 units."],
        tmp=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert f"Notebook written to {out}" in " ".join(r.stderr.split())
    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    assert code_sources(nb) == [CELL.split("\n", 1)[1].rsplit("\n", 1)[0]]
    meta = nb.metadata.codeact
    assert meta["model"] == "scripted:replies.json" and meta["executor"] == "restricted (process)"
    assert meta["files"] == ["sales.csv"]
    files_cell = next(c.source for c in nb.cells if "FILES = " in c.source)
    relative = Path(os.path.relpath(DATA.parent.resolve(), out.parent.resolve())).as_posix()
    assert f"DATA_DIR = (NOTEBOOK_DIR / {relative!r})" in files_cell
    text = json.dumps(nb)
    assert "First lines" not in text  # the files note for the model is left out
    assert nb.cells[-1].source == "**Answer:**\n\n85 units."


def test_run_checks_the_notebook_path_before_running(tmp_path: Path) -> None:
    r = codeact(
        "run",
        "x",
        "--notebook",
        str(tmp_path / "missing" / "a.ipynb"),
        replies=["hi"],
        tmp=tmp_path,
    )
    assert r.returncode == 2 and "No folder" in r.stderr
    assert "Step 1" not in r.stderr and r.stdout == ""


def test_batch_writes_one_notebook_per_task(tmp_path: Path) -> None:
    tasks, replies = make_tasks(tmp_path, 3)
    folder = tmp_path / "notebooks"
    r = run(argv(tasks, tmp_path / "results.jsonl", replies, "--notebooks", str(folder)))
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["t0.ipynb", "t1.ipynb", "t2.ipynb"]
    nb = nbformat.read(folder / "t2.ipynb", as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.codeact["task_id"] == "t2" and nb.metadata.codeact["status"] == "ok"
    assert nb.metadata.codeact["files"] == ["in.txt"]
    assert "final_answer(n * n)" in code_sources(nb)[0]
    line = (tmp_path / "results.jsonl").read_text().splitlines()[0]
    assert "messages" not in json.loads(line)  # the results file is unchanged


def test_batch_refuses_a_file_as_the_notebooks_folder(tmp_path: Path) -> None:
    tasks, replies = make_tasks(tmp_path, 1)
    (tmp_path / "taken").write_text("x")
    r = run(
        argv(tasks, tmp_path / "results.jsonl", replies, "--notebooks", str(tmp_path / "taken"))
    )
    assert r.returncode == 2 and "not a folder" in r.stderr
    assert not (tmp_path / "results.jsonl").exists()
