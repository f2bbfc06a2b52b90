"""``codeact batch --notebooks DIR``: one notebook per finished task, named after its id."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from codeact.batch import Task, TaskResult

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

__all__ = ["NotebookWriter", "notebook_name"]


def notebook_name(task_id: str) -> str:
    """A file name for the task's notebook: the id when it is a safe name, else a cleaned id
    with a short hash of the real one (two ids never share a file; no path leaves the folder)."""
    clean = _UNSAFE.sub("_", task_id).strip("._")[:80]
    if clean != task_id or not clean:
        digest = hashlib.sha256(task_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        clean = f"{clean or 'task'}-{digest}"
    return f"{clean}.ipynb"


class NotebookWriter:
    """Writes each result's notebook into ``folder``; the tasks' files are looked for in
    ``data_dir`` (the tasks file's folder) so the notebooks re-run where they are."""

    def __init__(
        self, folder: str, tasks: list[Task], data_dir: Path, model: str, executor: str
    ) -> None:
        self.folder = Path(folder)
        self.tasks = {t.id: t for t in tasks}
        self.data_dir = data_dir
        self.info: dict[str, Any] = {"model": model, "executor": executor}
        #: Notebooks that could not be written (the batch goes on without them).
        self.errors: list[str] = []

    def prepare(self) -> None:
        """Make the folder (``UserError`` when it cannot be)."""
        from codeact.errors import UserError

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"Cannot make the notebooks folder {self.folder}: {exc}") from exc

    def write(self, result: TaskResult) -> Path | None:
        """The task's notebook; None when the run kept no messages (it never started) or the
        notebook could not be written (said in ``errors``)."""
        from codeact.errors import UserError
        from codeact.notebooks import write_notebook

        if not result.messages:
            return None
        task = self.tasks.get(result.id)
        files = dict(task.files) if task is not None else {}
        try:
            return write_notebook(
                result,
                self.folder / notebook_name(result.id),
                files=files,
                data_dirs=[self.data_dir],
                title=f"Task {result.id}",
                metadata={"task_id": result.id, "status": result.status},
                **self.info,
            )
        except (UserError, OSError, ValueError) as exc:
            self.errors.append(f"no notebook for task {result.id!r}: {exc}")
            return None
