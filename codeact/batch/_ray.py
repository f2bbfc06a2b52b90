"""The Ray backend: one ``NodeWorker`` actor per node, tasks sent to whichever node has room.

The driver (this process) keeps the queue: each node takes up to its capacity of tasks at once
(``per_node``, default the node's CPUs); a task whose node died is sent to another node, up to
``max_retries`` times. New nodes that join during the batch are used from then on. Results come
back to the driver, which writes them. Ray is imported only here, only when this backend runs.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from codeact.batch._types import Task, TaskError, TaskResult
from codeact.batch._worker import Started, WorkerSpec
from codeact.errors import UserError

#: A task group's ``start_soon``.
Spawn = Callable[..., Any]
#: Seconds to wait for a node's worker to start and load its LLM.
READY_TIMEOUT_S = 600.0
#: How often the driver looks for nodes that joined while it waits for room.
REFRESH_S = 5.0
#: Extra seconds past the task timeout before the driver gives up on a node's answer.
DRIVER_GRACE_S = 60.0


def import_ray() -> Any:
    """``ray``, or a ``UserError`` naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise UserError("The ray backend needs Ray: pip install 'codeact[ray]'") from exc
    return ray


def connect(address: str | None, ray_init: dict[str, Any] | None = None) -> Any:
    """Connect this process to a Ray cluster (``None``: start a local one); returns ``ray``.
    Call it before installing signal handlers: ``ray.init`` replaces the SIGTERM handler."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    try:
        ray.init(address=address, **(ray_init or {}))
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise UserError(
            f"Cannot connect to the Ray cluster at {address or 'local'}: {exc}"
        ) from exc
    return ray


@dataclass
class _Slot:
    handle: Any
    node_id: str
    capacity: int
    inflight: int = 0
    alive: bool = True


class _Pool:
    """The node workers and how many tasks each is running."""

    def __init__(self, ray: Any, spec: WorkerSpec, per_node: int | None) -> None:
        from codeact.batch._node import NodeWorker

        self.ray = ray
        self.spec = spec
        self.per_node = per_node
        self.slots: list[_Slot] = []
        self.seen: set[str] = set()
        self._actor = ray.remote(NodeWorker)
        self._changed = anyio.Event()
        self._look_at = 0.0

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def grow(self, spawn: Spawn | None = None) -> None:
        """Start a worker on every alive node not seen before; wait until they are ready, or
        with ``spawn`` (a task group's ``start_soon``) let them get ready in the background
        and join the pool then, while the other nodes keep taking tasks."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        new = []
        for node in self.ray.nodes():
            node_id = node["NodeID"]
            if not node.get("Alive") or node_id in self.seen:
                continue
            self.seen.add(node_id)
            cpus = int(node.get("Resources", {}).get("CPU", 1)) or 1
            capacity = self.per_node or cpus
            handle = self._actor.options(
                num_cpus=0,
                max_concurrency=capacity + 4,
                max_restarts=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            ).remote(self.spec)
            new.append(_Slot(handle, node_id, capacity))
        self._look_at = time.monotonic() + REFRESH_S
        for slot in new:
            if spawn is None:
                await self._ready(slot)
            else:
                spawn(self._join, slot)
        if new and spawn is None:
            self._notify()

    async def _join(self, slot: _Slot) -> None:
        await self._ready(slot)
        self._notify()

    async def _ready(self, slot: _Slot) -> None:
        try:
            with anyio.fail_after(READY_TIMEOUT_S):
                _node, _host, error = await slot.handle.ready.remote()
        except (TimeoutError, self.ray.exceptions.RayError):
            return  # the node went away before its worker started: not used
        if error is not None:
            raise UserError(f"The LLM could not be made on node {slot.node_id}: {error}")
        self.slots.append(slot)

    async def acquire(self, spawn: Spawn | None = None) -> _Slot:
        """A node worker with room for one more task (waits for room). New nodes are looked
        for every few seconds, also while the others have room (with ``spawn``, see
        ``grow``). ``UserError`` when no node is left."""
        while True:
            if spawn is not None and time.monotonic() >= self._look_at:
                await self.grow(spawn)
            alive = [s for s in self.slots if s.alive]
            free = [s for s in alive if s.inflight < s.capacity]
            if free:
                slot = max(free, key=lambda s: s.capacity - s.inflight)
                slot.inflight += 1
                return slot
            if not alive:
                await self.grow()
                if not any(s.alive for s in self.slots):
                    raise UserError("No Ray node is left to run tasks on")
                continue
            changed = self._changed
            with anyio.move_on_after(REFRESH_S) as scope:
                await changed.wait()
            if scope.cancelled_caught:
                await self.grow(spawn)

    def release(self, slot: _Slot) -> None:
        """A task on ``slot`` ended."""
        slot.inflight -= 1
        self._notify()

    def lost(self, slot: _Slot) -> None:
        """``slot``'s node (or its worker) died: no more tasks go there."""
        slot.alive = False
        self._notify()

    def close(self) -> None:
        """Stop every node worker."""
        for slot in self.slots:
            with contextlib.suppress(Exception):  # already gone with its node
                self.ray.kill(slot.handle, no_restart=True)


async def run_ray(
    tasks: list[Task],
    spec: WorkerSpec,
    send: MemoryObjectSendStream[TaskResult],
    started: Started,
    *,
    per_node: int | None,
    address: str | None,
    max_retries: int,
    ray_init: dict[str, Any] | None,
) -> None:
    """The Ray backend (see the module docstring)."""
    owns = not import_ray().is_initialized()
    ray = connect(address, ray_init)
    pool = _Pool(ray, spec, per_node)
    try:
        await pool.grow()
        async with anyio.create_task_group() as tg:
            for task in tasks:
                slot = await pool.acquire(tg.start_soon)
                tg.start_soon(_run_with_retries, pool, slot, task, max_retries, send, started)
    finally:
        pool.close()
        if owns:
            ray.shutdown()


async def _run_with_retries(
    pool: _Pool,
    slot: _Slot,
    task: Task,
    max_retries: int,
    send: MemoryObjectSendStream[TaskResult],
    started: Started,
) -> None:
    attempt = 1
    while True:
        started(task.id)
        result, lost = await _attempt(pool, slot, task, attempt)
        if result is not None:
            break
        if attempt > max_retries:
            error = TaskError(
                kind="worker_lost",
                type=type(lost).__name__,
                message=f"the node running it died {attempt} time(s): {lost}",
            )
            result = _failed(task, slot, attempt, error)
            break
        attempt += 1
        slot = await pool.acquire()
    await send.send(result)


def _failed(task: Task, slot: _Slot, attempt: int, error: TaskError) -> TaskResult:
    status = "timeout" if error.kind == "timeout" else "failed"
    return TaskResult(
        id=task.id,
        status=status,
        error=error,
        expected=task.expected,
        metadata=task.metadata,
        node=slot.node_id,
        attempts=attempt,
    )


async def _attempt(
    pool: _Pool, slot: _Slot, task: Task, attempt: int
) -> tuple[TaskResult | None, BaseException | None]:
    """``(result, None)``, or ``(None, error)`` when the node was lost (the task may be
    retried). Cancelling it cancels the task on its node and waits for its sandbox to close."""
    ray = pool.ray
    ref = slot.handle.run.remote(task, attempt)
    timeout = pool.spec.timeout
    limit = timeout * 1.5 + DRIVER_GRACE_S if timeout else math.inf
    try:
        with anyio.move_on_after(limit):
            return await ref, None
        ray.cancel(ref)
        message = f"no answer from node {slot.node_id} after {limit:g} s"
        error = TaskError(kind="timeout", type="TimeoutError", message=message)
        return _failed(task, slot, attempt, error), None
    except anyio.get_cancelled_exc_class():
        with contextlib.suppress(Exception):
            ray.cancel(ref)
        # TaskCancelledError, or the node is gone: either way the sandbox is closed
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(30),
            contextlib.suppress(Exception),
        ):
            await ref
        raise
    except ray.exceptions.RayTaskError as exc:  # raised inside the worker: not the node's fault
        error = TaskError(kind="failed", type=type(exc.cause).__name__, message=str(exc.cause))
        return _failed(task, slot, attempt, error), None
    except ray.exceptions.RayError as exc:  # the actor or its node died
        pool.lost(slot)
        return None, exc
    finally:
        pool.release(slot)
