"""Putting a notebook together: title, files, set-up cell, the transcript's cells, metadata."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from codeact._messages import ChatMessage
from codeact.notebooks._cells import build_cells
from codeact.notebooks._nodes import Nodes
from codeact.notebooks._setup import files_cell, setup_cell

__all__ = ["assemble"]

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def assemble(
    messages: Sequence[ChatMessage],
    nbf: Nodes,
    *,
    files: Mapping[str, bytes | int] | Iterable[str] | None,
    data_dir: str,
    title: str | None,
    info: dict[str, Any],
) -> Any:
    """The notebook node (not yet validated)."""
    names, sizes = _files(files)
    strip = ""
    if isinstance(files, Mapping) and files and all(isinstance(b, bytes) for b in files.values()):
        from codeact.agents.code import describe_files

        strip = describe_files({str(n): bytes(b) for n, b in files.items()})
    body = build_cells(messages, nbf, strip=strip)
    cells = [nbf.new_markdown_cell(_heading(messages, title, info))]
    if names:
        listing = "\n".join(
            f"- `{n.replace('`', '')}`" + (f" ({sizes[n]} bytes)" if n in sizes else "")
            for n in names
        )
        cells.append(nbf.new_markdown_cell(f"Files the run uploaded:\n\n{listing}"))
        cells.append(nbf.new_code_cell(files_cell(names, sizes, data_dir)))
    setup = setup_cell(body.final_answer, body.tools, body.matplotlib)
    if setup is not None:
        cells.append(nbf.new_code_cell(setup))
    cells += body.cells
    if body.budget.images_left_out:
        cells.append(
            nbf.new_markdown_cell(
                f"*{body.budget.images_left_out} figure(s) were left out of this notebook to "
                "keep it small; run it to draw them again.*"
            )
        )
    info = {**info, "files": names, "code_cells": body.count}
    metadata = {
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python"},
        "codeact": info,
    }
    return nbf.new_notebook(cells=cells, metadata=metadata)


def _files(
    files: Mapping[str, bytes | int] | Iterable[str] | None,
) -> tuple[list[str], dict[str, int]]:
    if files is None:
        return [], {}
    if isinstance(files, Mapping):
        sizes = {str(n): len(b) if isinstance(b, bytes) else int(b) for n, b in files.items()}
        return list(sizes), sizes
    if isinstance(files, str | bytes):
        raise TypeError("files must be a mapping of names to bytes, or a list of names")
    return [str(n) for n in files], {}


def _heading(messages: Sequence[ChatMessage], title: str | None, info: dict[str, Any]) -> str:
    if title is None:
        first = next((m.text for m in messages if m.role == "user"), "")
        title = first.strip().split("\n")[0][:80] or "codeact run"
    title = " ".join(title.split()).lstrip("#").strip() or "codeact run"
    return (
        f"# {title}\n\n"
        f"Exported by codeact {info.get('version')} from a run of the model "
        f"`{_tick(info.get('model'))}` in the `{_tick(info.get('executor'))}` sandbox. "
        "Each code cell is a block the agent ran, with the outputs it had then; "
        "run the notebook to compute them again."
    )


def _tick(value: Any) -> str:
    return " ".join(str(value).split()).replace("`", "'")
