"""The conversation context shared by runs: memory, shared state and the active agent."""

from __future__ import annotations

import copy
from typing import Any

from codeact.memory import ChatMemory


class Context:
    """Everything that outlives one run of an agent or workflow.

    Pass the same ``Context`` to several ``run(ctx=...)`` calls (or reuse ``handler.ctx``) to
    continue a conversation: memory, ``state``, the active agent and per-agent resources (such as a
    CodeAct executor session) carry over. Tools that declare a parameter annotated ``Context``
    receive it and may read and update ``ctx.state``.
    """

    def __init__(
        self, memory: ChatMemory | None = None, state: dict[str, Any] | None = None
    ) -> None:
        if memory is not None and not isinstance(memory, ChatMemory):
            hint = (
                " Context() takes no agent (a LlamaIndex habit): create Context() and pass it "
                "as agent.run(..., ctx=ctx)."
                if hasattr(memory, "run")
                else ""
            )
            raise TypeError(
                f"Context(memory=...) needs a ChatMemory, got {type(memory).__name__}." + hint
            )
        if state is not None and not isinstance(state, dict):
            raise TypeError(f"Context(state=...) needs a dict, got {type(state).__name__}")
        self.memory: ChatMemory = memory if memory is not None else ChatMemory()
        self.state: dict[str, Any] = copy.deepcopy(state) if state else {}
        self.current_agent_name: str | None = None
        #: Set by a successful ``handoff``: the agent that takes over after this tool round.
        self.pending_handoff: str | None = None
        #: Per-agent resources kept across runs (keyed by agent name), e.g. executor sessions.
        self.resources: dict[str, Any] = {}
        self._initialised = False

    async def aclose(self) -> None:
        """Close resources the agents opened for this context (executor sessions). Idempotent."""
        resources, self.resources = self.resources, {}
        for res in resources.values():
            closer = getattr(res, "aclose", None)  # borrowed resources have none
            if closer is not None:
                await closer()

    async def __aenter__(self) -> Context:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


__all__ = ["Context"]
