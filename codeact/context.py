"""The conversation context shared by runs: memory, shared state, the active agent and the
resources (such as executor sessions) the agents keep for it."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from codeact.memory import ChatMemory


@runtime_checkable
class Resource(Protocol):
    """Something a context can close: an executor session, a client, a temporary directory."""

    async def aclose(self) -> None:
        """Release it (called at most once by ``Context.aclose``)."""


@dataclass(frozen=True)
class HeldResource:
    """A resource kept by a context, and whether the context owns it (closes it)."""

    resource: Resource
    #: True: ``Context.aclose`` closes it. False: borrowed (e.g. an executor instance the user
    #: passed to an agent and shares between conversations); the user closes it.
    owned: bool


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
        #: Per-agent resources kept across runs, by key (e.g. ``executor:<agent name>``).
        self.resources: dict[str, HeldResource] = {}
        self._state_set = False

    # -- shared state ----------------------------------------------------------------------------
    @property
    def state_is_set(self) -> bool:
        """True once the state was set for this conversation (by ``set_state`` or a first
        run); the agents' ``initial_state`` then no longer applies."""
        return self._state_set

    def set_state(self, state: dict[str, Any]) -> None:
        """Replace the shared state (a deep copy); the agents' ``initial_state`` is not applied
        over it."""
        if not isinstance(state, dict):
            raise TypeError(f"set_state() needs a dict, got {type(state).__name__}")
        self.state = copy.deepcopy(state)
        self._state_set = True

    def init_state(self, initial: dict[str, Any] | None) -> None:
        """At the start of a run: use ``initial`` (or ``{}``) unless the state was set."""
        if not self._state_set:
            self.set_state(initial or {})

    # -- resources -------------------------------------------------------------------------------
    def hold(self, key: str, resource: Resource, *, owned: bool) -> None:
        """Keep ``resource`` under ``key``; ``owned`` ones are closed by ``aclose``."""
        if not isinstance(resource, Resource):
            raise TypeError(f"a context resource needs an async aclose(), got {resource!r}")
        self.resources[key] = HeldResource(resource, owned)

    def resource(self, key: str) -> Resource | None:
        """The resource kept under ``key``, or None."""
        held = self.resources.get(key)
        return held.resource if held is not None else None

    async def aclose(self) -> None:
        """Close the resources this context owns (executor sessions); borrowed ones stay open.
        Idempotent."""
        resources, self.resources = self.resources, {}
        for held in resources.values():
            if held.owned:
                await held.resource.aclose()

    async def __aenter__(self) -> Context:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


__all__ = ["Context", "HeldResource", "Resource"]
