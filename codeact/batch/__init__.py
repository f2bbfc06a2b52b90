"""Many tasks at once: each with a fresh agent and its own sandbox, locally or on Ray.

``run_batch(tasks, agent_factory, llm_factory, ...)`` streams a ``TaskResult`` per ``Task`` as
they finish; ``load_tasks`` reads a JSON-lines file (or a folder), ``ResultsWriter`` and
``read_results`` keep a results file that a later run resumes from. ``CodeActAgentFactory``
(around a ``codeact.executors.SandboxSpec``), ``ModelFactory`` and ``ScriptedFactory`` are
factories that pickle, for the ``ray`` backend; ``load_score`` reads ``exact``, ``contains`` or
``MODULE:FN``. The ``ray`` backend needs
the ``ray`` extra and imports Ray only when it runs.
"""

from __future__ import annotations

from codeact.batch._api import Backend, BatchRun, collect_batch, run_batch
from codeact.batch._factories import CodeActAgentFactory, ModelFactory, ScriptedFactory
from codeact.batch._files import ResultsWriter, load_tasks, read_results
from codeact.batch._scoring import load_score
from codeact.batch._summary import Summary, summarize
from codeact.batch._types import (
    AgentFactory,
    CellRecord,
    LLMFactory,
    LLMScope,
    ScoreFn,
    Task,
    TaskError,
    TaskResult,
    Timings,
    Usage,
)
from codeact.batch._worker import WorkerSpec

__all__ = [
    "AgentFactory",
    "Backend",
    "BatchRun",
    "CellRecord",
    "CodeActAgentFactory",
    "LLMFactory",
    "LLMScope",
    "ModelFactory",
    "ResultsWriter",
    "ScoreFn",
    "ScriptedFactory",
    "Summary",
    "Task",
    "TaskError",
    "TaskResult",
    "Timings",
    "Usage",
    "WorkerSpec",
    "collect_batch",
    "load_score",
    "load_tasks",
    "read_results",
    "run_batch",
    "summarize",
]
