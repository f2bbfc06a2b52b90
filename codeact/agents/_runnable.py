"""Runnable: what can be run (and served): an agent, or an AgentWorkflow of several."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from codeact._messages import ChatMessage
from codeact.agents._handler import RunHandler
from codeact.agents._state import EarlyStopping, RunOptions
from codeact.context import Context
from codeact.memory import ChatMemory
from codeact.tools import BaseTool

if TYPE_CHECKING:
    from codeact.agents._config import RunConfig


@runtime_checkable
class Runnable(Protocol):
    """An agent or a workflow: what ``agent.run(...)`` and the server can run.

    ``run(...)`` is ``start_run(self.run_config(RunOptions(...)), user_msg, ...)``: the
    run-wide options (one ``RunOptions``) go through one builder, ``run_config``, for every
    kind of runnable (the server passes its
    per-request options to ``run``, so a subclass that overrides ``run`` is honoured).
    ``BaseAgent`` and ``AgentWorkflow`` subclass it and inherit ``run`` as written here; they
    define ``run_config``.
    """

    def run_config(self, options: RunOptions | None = None) -> RunConfig:
        """The configuration of one run (run-wide options override the runnable's own)."""
        raise NotImplementedError(f"{type(self).__name__} must define run_config")

    def run(
        self,
        user_msg: str | ChatMessage | None = None,
        *,
        chat_history: Sequence[ChatMessage] | None = None,
        memory: ChatMemory | None = None,
        ctx: Context | None = None,
        max_iterations: int | None = None,
        early_stopping_method: EarlyStopping | None = None,
        timeout: float | None = None,
        client_tools: Sequence[BaseTool] = (),
        instructions: Sequence[str] = (),
    ) -> RunHandler:
        """Start a run and return its ``RunHandler``.

        Pass ``ctx`` (or the same ``memory``) again to continue a conversation. ``client_tools``
        are tools the caller executes (see ``ClientTool``); ``instructions`` are extra system
        messages for this run only (sent after the system prompt, never stored).
        """
        from codeact.agents._loop import start_run

        options = RunOptions(
            max_iterations=max_iterations,
            early_stopping_method=early_stopping_method,
            timeout=timeout,
            client_tools=tuple(client_tools),
            instructions=tuple(instructions),
        )
        config = self.run_config(options)
        return start_run(config, user_msg, chat_history=chat_history, memory=memory, ctx=ctx)
