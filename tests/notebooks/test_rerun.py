"""The notebook of a real run re-runs: a CodeAct run over examples/data/sales.csv (scripted
model, real restricted executor) is exported, validated, then executed top to bottom by
nbclient on an ipykernel kernel, next to a copy of the uploaded file. Every code cell prints
the same stdout as in the sandbox, the figure is drawn again, the failing cell fails again
(tagged ``raises-exception``, so the notebook runs on past it) and ``final_answer`` works."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from codeact.notebooks import write_notebook
from tests.notebooks.sales_run import SALES, sales_run

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "data" / "sales_analysis.ipynb"


def execute(nb: Any, folder: Path) -> Any:
    """``nb`` run top to bottom by a fresh ipykernel, in ``folder``; returns the run copy."""
    ran = copy.deepcopy(nb)
    for cell in ran.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    client = nbclient.NotebookClient(
        ran, kernel_name="python3", timeout=120, resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    return ran


def stdout(cell: Any) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


def kinds(cell: Any) -> set[str]:
    out = set()
    for o in cell.outputs:
        out.add(o.output_type)
        out |= set(o.get("data", {}))
    return out


def agent_cells(nb: Any) -> list[Any]:
    return [c for c in nb.cells if c.cell_type == "code" and "codeact" in c.metadata]


def test_sales_notebook_reruns_with_the_same_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEACT_EXAMPLE_SCRIPTED", "1")
    ctx, files = anyio.run(sales_run)
    shutil.copy(SALES, tmp_path / "sales.csv")
    path = write_notebook(
        ctx, tmp_path / "sales.ipynb", files=files, model="scripted-sales", executor="restricted"
    )
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    exported = agent_cells(nb)
    assert len(exported) == 4
    assert "(10, 5)" in stdout(exported[0])
    assert "image/png" in kinds(exported[1]) and "Paris    33" in stdout(exported[1])
    assert "error" in kinds(exported[2]) and exported[2].metadata["tags"] == ["raises-exception"]

    ran = execute(nb, tmp_path)
    again = agent_cells(ran)
    for before, after in zip(exported, again, strict=True):
        assert stdout(after) == stdout(before), before.source
    assert {"execute_result", "text/html", "text/plain"} <= kinds(again[0])
    assert "image/png" in kinds(again[1])  # the figure is drawn again
    assert [o.ename for o in again[2].outputs if o.output_type == "error"] == ["KeyError"]
    assert stdout(again[3]) == "Paris sold 33 units\n"


def test_committed_example_notebook_is_valid_and_reruns(tmp_path: Path) -> None:
    """examples/data/sales_analysis.ipynb (written by examples/notebook_export.py) sits next
    to sales.csv and runs there."""
    nb = nbformat.read(EXAMPLE, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["codeact"]["files"] == ["sales.csv"]
    ran = execute(nb, EXAMPLE.parent)
    for before, after in zip(agent_cells(nb), agent_cells(ran), strict=True):
        assert stdout(after) == stdout(before)
