"""The data a batch moves around: a ``Task`` in, a ``TaskResult`` out (both JSON-friendly)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, field_validator

from codeact._messages import ChatMessage
from codeact.errors import UserError

if TYPE_CHECKING:
    from codeact.agents.base import BaseAgent
    from codeact.llms.base import LLM

Status = Literal["ok", "failed", "timeout"]
ErrorKind = Literal["failed", "timeout", "setup", "worker_lost"]


class Task(BaseModel):
    """One unit of work: its id, the prompt, files for its sandbox and metadata carried through.

    ``files`` maps a file name (relative, inside the sandbox's working directory) to its bytes;
    they travel with the task, also to a remote node. ``expected`` and ``metadata`` are not
    looked at by the batch: they are copied into the result (and given to the scoring hook).
    """

    model_config = ConfigDict(frozen=True)
    id: str
    prompt: str
    files: dict[str, bytes] = Field(default_factory=dict)
    expected: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _id_not_empty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("a task id must not be empty")
        return v

    @field_validator("files")
    @classmethod
    def _relative_names(cls, v: dict[str, bytes]) -> dict[str, bytes]:
        for name in v:
            parts = name.replace("\\", "/").split("/")
            if not name or name.startswith("/") or ".." in parts:
                raise ValueError(f"file name {name!r} must be a relative path inside the sandbox")
        return v


class CellRecord(BaseModel):
    """One code cell the agent ran, with what it produced."""

    code: str
    stdout: str = ""
    stderr: str = ""
    value: str | None = None
    error: str | None = None
    timed_out: bool = False
    duration_s: float = 0.0


class TaskError(BaseModel):
    """Why a task did not produce an answer: a kind, the exception type and its message."""

    kind: ErrorKind
    type: str
    message: str


class Timings(BaseModel):
    """Seconds spent: the whole task, waiting for the model, running code."""

    total_s: float = 0.0
    llm_s: float = 0.0
    code_s: float = 0.0


class Usage(BaseModel):
    """Token counts, when the LLM reports them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


class TaskResult(BaseModel):
    """What one task produced. ``status`` is ``ok``, ``failed`` or ``timeout``; ``error`` says why
    when it is not ``ok``. ``value`` is what ``final_answer(value)`` returned, if it was used."""

    id: str
    status: Status
    answer: str | None = None
    value: Any = None
    cells: list[CellRecord] = Field(default_factory=list)
    timings: Timings = Field(default_factory=Timings)
    usage: Usage | None = None
    error: TaskError | None = None
    expected: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    score: float | None = None
    #: Set when the scoring hook itself raised (the task's own status is unaffected).
    score_error: str | None = None
    #: Where it ran (``local`` or a Ray node id) and how many attempts it took.
    node: str = "local"
    attempts: int = 1
    #: The run's messages (every cell with its full result), kept when the batch runs with
    #: ``keep_messages=True`` (for ``codeact.notebooks``); never written to the results file.
    messages: list[ChatMessage] = Field(default_factory=list, exclude=True, repr=False)

    @property
    def ok(self) -> bool:
        """True when the task produced an answer."""
        return self.status == "ok"


#: Builds a fresh agent for one task around the worker's LLM; called once per task.
AgentFactory: TypeAlias = "Callable[[LLM], BaseAgent]"
#: Builds the LLM; called once per worker (once per process locally, once per Ray node).
LLMFactory: TypeAlias = "Callable[[], LLM]"
#: ``score(task, result)``: a number or a bool (True = 1.0); None leaves the task unscored.
#: May be async.
ScoreFn: TypeAlias = Callable[
    [Task, TaskResult], "float | bool | Awaitable[float | bool | None] | None"
]
LLMScope = Literal["worker", "task"]


def check_unique(tasks: list[Task]) -> None:
    """Refuse two tasks with one id: results and resume are keyed by id."""
    seen: set[str] = set()
    dupes: list[str] = []
    for t in tasks:
        if t.id in seen:
            dupes.append(t.id)
        seen.add(t.id)
    if dupes:
        raise UserError(f"Task ids must be unique; repeated: {sorted(set(dupes))[:10]}")
