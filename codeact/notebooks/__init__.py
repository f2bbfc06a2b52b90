"""Notebooks out: a run, a thread or a batch task as a Jupyter notebook (nbformat 4) that re-runs.

The question and the agents' prose become markdown cells; every code block the agent ran
becomes a code cell with its outputs as Jupyter shows them (stdout/stderr streams, the trailing
value, tables as ``text/html`` + ``text/plain``, figures as ``image/png``, errors); the files the
run uploaded are listed at the top with a cell that finds them; what existed only in the
sandbox (``final_answer``, host tools) gets stand-ins in a set-up cell and a comment on the
cells that used it. Failed cells are tagged ``raises-exception`` so "Run all" goes on past them.
The notebook's metadata (``metadata.codeact``) records codeact's version, the model and the
executor::

    from codeact.notebooks import write_notebook

    handler = agent.run("Which city sold the most units?", ctx=ctx)
    await handler
    write_notebook(handler, "analysis.ipynb", files={"sales.csv": data}, model="qwen")

Needs the ``nbformat`` package (``pip install 'codeact[notebooks]'``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from codeact._messages import ChatMessage
from codeact.errors import UserError

if TYPE_CHECKING:
    from codeact.agents import RunHandler
    from codeact.batch import TaskResult
    from codeact.context import Context
    from codeact.memory import ChatMemory

#: What can become a notebook: the messages of a conversation, or what holds them.
NotebookSource: TypeAlias = "Sequence[ChatMessage] | ChatMemory | Context | RunHandler | TaskResult"
#: Uploaded files: name -> bytes (sizes are recorded, and the CLI's files note is recognised),
#: name -> size in bytes, or just their names.
NotebookFiles: TypeAlias = "Mapping[str, bytes] | Mapping[str, int] | Iterable[str]"

__all__ = [
    "NotebookFiles",
    "NotebookSource",
    "check_notebook_path",
    "notebook_json",
    "notebook_messages",
    "to_notebook",
    "write_notebook",
]


def _nbformat() -> Any:
    try:
        import nbformat
    except ImportError as exc:
        raise UserError(
            "Exporting notebooks needs the nbformat package: pip install 'codeact[notebooks]'"
        ) from exc
    return nbformat


def notebook_messages(source: Any) -> list[ChatMessage]:
    """The messages of ``source`` (see ``NotebookSource``); ``UserError`` for anything else."""
    from codeact.context import Context
    from codeact.memory import ChatMemory

    if isinstance(source, Context):
        return source.memory.get_all()
    if isinstance(source, ChatMemory):
        return source.get_all()
    ctx = getattr(source, "ctx", None)
    if isinstance(ctx, Context):  # a RunHandler
        return ctx.memory.get_all()
    if type(source).__name__ == "AgentOutput":
        raise UserError(
            "An AgentOutput holds the answer, not the cells: pass the RunHandler (or its ctx) "
            "to export the run as a notebook"
        )
    messages = getattr(source, "messages", source)  # a TaskResult keeps them when asked to
    if isinstance(messages, Sequence) and all(isinstance(m, ChatMessage) for m in messages):
        if not messages and type(source).__name__ == "TaskResult":
            raise UserError(
                "This TaskResult kept no messages: run the batch with keep_messages=True"
            )
        return list(messages)
    raise UserError(
        f"Cannot make a notebook from {type(source).__name__}: give a list of ChatMessage, a "
        "ChatMemory, a Context, a RunHandler or a TaskResult"
    )


def to_notebook(
    source: NotebookSource,
    *,
    files: NotebookFiles | None = None,
    model: str | None = None,
    executor: str | None = None,
    title: str | None = None,
    data_dir: str = ".",
    metadata: Mapping[str, Any] | None = None,
) -> Any:
    """``source`` (a ``NotebookSource``) as an ``nbformat.NotebookNode`` (version 4, valid).

    ``files`` are the files the run uploaded (name -> bytes or size, or names); ``data_dir``
    is where the notebook finds them, relative to the notebook (default: next to it). ``model`` and
    ``executor`` are recorded in ``metadata.codeact`` with codeact's version and ``metadata``.
    """
    from codeact._version import __version__
    from codeact.notebooks._build import assemble
    from codeact.notebooks._nodes import Nodes

    nbformat = _nbformat()
    messages = notebook_messages(source)
    info = {"version": __version__, "model": model or "unknown", "executor": executor or "unknown"}
    info.update(metadata or {})
    nb = assemble(messages, Nodes(), files=files, data_dir=data_dir, title=title, info=info)
    nbformat.validate(nb)  # the whole notebook against the nbformat 4 schema, once
    return nb


def write_notebook(
    source: NotebookSource,
    path: str | os.PathLike[str],
    *,
    data_dirs: Iterable[str | os.PathLike[str]] = (),
    **options: Any,
) -> Path:
    """Write ``to_notebook(source, **options)`` to ``path`` (``.ipynb``); returns the path.

    ``data_dirs`` are folders where the uploaded ``files`` (name -> bytes) may sit: the first
    holding them all becomes the notebook's ``DATA_DIR`` (relative to it), so it re-runs
    without copying them. Written to a temporary file first: a reader never sees half a
    notebook."""
    target = Path(path)
    files = options.get("files")
    if data_dirs and isinstance(files, Mapping) and "data_dir" not in options:
        from codeact.notebooks._setup import data_dir_for

        options["data_dir"] = data_dir_for(files, [Path(d) for d in data_dirs], target)
    nb = to_notebook(source, **options)
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        tmp.write_text(notebook_json(nb), encoding="utf-8")
        tmp.replace(target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UserError(f"Cannot write the notebook {target}: {exc}") from exc
    return target


def check_notebook_path(path: str | os.PathLike[str], *, folder: bool = False) -> None:
    """``UserError`` unless a notebook can be written at ``path`` (a ``.ipynb`` file in an
    existing folder; with ``folder``, a folder that exists or can be made): checked before a
    long run rather than after it. Also checks that nbformat is installed."""
    _nbformat()
    target = Path(path)
    if folder:
        if target.exists() and not target.is_dir():
            raise UserError(f"{target} exists and is not a folder")
        return
    if target.suffix != ".ipynb":
        raise UserError(f"A notebook's name ends in .ipynb: {target}")
    if not target.parent.is_dir():
        raise UserError(f"No folder {target.parent} to write the notebook {target.name} in")
    if target.is_dir():
        raise UserError(f"{target} is a folder")


def notebook_json(nb: Any) -> str:
    """The ``.ipynb`` text of a notebook from ``to_notebook`` (validated there already:
    nbformat's JSON writer, without validating it a second time)."""
    writes = _nbformat().v4.nbjson.writes
    text: str = writes(nb)
    return text if text.endswith("\n") else text + "\n"
