"""Tasks in (a JSON-lines file or a folder of files), results out (a JSON-lines file to resume).

Tasks file: one JSON object a line, ``{"id": "q1", "prompt": "...", "files": ["data.csv"],
"expected": 42, "metadata": {...}}``. ``question`` is accepted for ``prompt`` and ``answer`` for
``expected``; ``files`` is a list of paths or a ``{name: path}`` object, relative to the tasks
file; other keys go into ``metadata``. A missing ``id`` is the line number.

Results file: one ``TaskResult`` a line, appended (and flushed) as each task finishes. An
interrupted run leaves at most a cut last line, which is dropped when the file is reopened.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from codeact.batch._types import Task, TaskResult, check_unique
from codeact.errors import UserError

_KNOWN = {"id", "prompt", "question", "files", "expected", "answer", "metadata"}


def load_tasks(path: str | os.PathLike[str], *, prompt: str | None = None) -> list[Task]:
    """The tasks in a JSON-lines file, or one task per file of a folder (``prompt`` required:
    each task asks it about its one file, whose name is the task id)."""
    p = Path(path)
    if p.is_dir():
        return _folder_tasks(p, prompt)
    if not p.is_file():
        raise UserError(f"No tasks file or folder at {p}")
    tasks = []
    for lineno, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{p}:{lineno}: not valid JSON ({exc.msg})") from exc
        if not isinstance(obj, dict):
            raise UserError(f"{p}:{lineno}: a task must be a JSON object")
        tasks.append(_task(obj, lineno, p.parent, prompt, where=f"{p}:{lineno}"))
    check_unique(tasks)
    return tasks


def _task(obj: dict[str, Any], lineno: int, base: Path, default: str | None, where: str) -> Task:
    text = obj.get("prompt", obj.get("question", default))
    if not isinstance(text, str) or not text.strip():
        raise UserError(f"{where}: a task needs a 'prompt' (text)")
    metadata = dict(obj.get("metadata") or {})
    metadata.update({k: v for k, v in obj.items() if k not in _KNOWN})
    try:
        return Task(
            id=str(obj.get("id", lineno)),
            prompt=text,
            files=_read_files(obj.get("files") or [], base, where),
            expected=obj.get("expected", obj.get("answer")),
            metadata=metadata,
        )
    except ValidationError as exc:
        raise UserError(f"{where}: {exc.errors()[0]['msg']}") from exc


def _read_files(spec: Any, base: Path, where: str) -> dict[str, bytes]:
    if isinstance(spec, list):
        pairs = [(Path(str(f)).name, str(f)) for f in spec]
    elif isinstance(spec, dict):
        pairs = [(str(k), str(v)) for k, v in spec.items()]
    else:
        raise UserError(f"{where}: 'files' must be a list of paths or a {{name: path}} object")
    out = {}
    for name, rel in pairs:
        file = (base / rel).expanduser()
        try:
            out[name] = file.read_bytes()
        except OSError as exc:
            raise UserError(f"{where}: cannot read file {file}: {exc.strerror}") from exc
    return out


def _folder_tasks(folder: Path, prompt: str | None) -> list[Task]:
    if not prompt:
        raise UserError(
            f"{folder} is a folder: give the question to ask about each file with --prompt"
        )
    files = sorted(f for f in folder.iterdir() if f.is_file() and not f.name.startswith("."))
    if not files:
        raise UserError(f"The folder {folder} has no files")
    return [Task(id=f.name, prompt=prompt, files={f.name: f.read_bytes()}) for f in files]


def read_results(path: str | os.PathLike[str]) -> dict[str, TaskResult]:
    """The results already in a results file, by task id (a later line for an id wins; a cut
    or foreign line is skipped). An absent file has none."""
    p = Path(path)
    if not p.exists():
        return {}
    out: dict[str, TaskResult] = {}
    for line in p.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            result = TaskResult.model_validate_json(line)
        except ValidationError:
            continue
        out[result.id] = result
    return out


class ResultsWriter:
    """Appends results to a JSON-lines file, one flushed ``write`` per result (a killed process
    loses no finished result). Opening it drops a cut last line left by an earlier crash."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def open(self) -> ResultsWriter:
        """Open for appending (creating the file and its folder if needed)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        size = os.fstat(fd).st_size
        if size:
            data = os.pread(fd, min(size, 1 << 20), max(0, size - (1 << 20)))
            if not data.endswith(b"\n"):
                cut = data.rfind(b"\n")
                os.ftruncate(fd, size - len(data) + cut + 1)  # cut = -1: drop the chunk
        self._fd = fd
        return self

    def write(self, result: TaskResult) -> None:
        """Append one result as one line."""
        if self._fd is None:
            raise UserError("ResultsWriter is not open")
        os.write(self._fd, (result.model_dump_json() + "\n").encode("utf-8"))

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> ResultsWriter:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()
