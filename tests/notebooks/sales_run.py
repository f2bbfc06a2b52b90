"""The run the notebook tests export: ``examples/notebook_export.py`` (a scripted CodeAct run
over examples/data/sales.csv in the real restricted executor), loaded from its file."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SALES = ROOT / "examples" / "data" / "sales.csv"


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "notebook_export", ROOT / "examples" / "notebook_export.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def sales_run() -> tuple[Any, dict[str, bytes]]:
    """The (closed) context holding the transcript, and the uploaded files (the caller sets
    ``CODEACT_EXAMPLE_SCRIPTED=1``)."""
    assert os.environ.get("CODEACT_EXAMPLE_SCRIPTED") == "1"
    ctx, files, _model = await example().run()
    return ctx, files
