"""RayPeer: one session's sandbox on a node as a ``KernelPeer`` of the driver.

Its ``KernelClient`` speaks over a TCP connection to the session's relay on the node (the
first bytes are the session's token); control calls go to the node's ``NodeHost`` through Ray.
When the connection ends, the host is asked why; a host that does not answer means the node
died or left: the session is reported lost (naming the node) and started again elsewhere.
"""

from __future__ import annotations

import contextlib
import socket
import uuid
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import SocketAttribute

from codeact.errors import ExecutorError, UserError
from codeact.executors.ray._placement import PLACEMENT, Need, NoRoom
from codeact.executors.wire.client import KernelClient
from codeact.executors.wire.session import KernelPeer

#: Attempts to place a session before giving up (a node that just died may still be listed).
PLACE_ATTEMPTS = 3
#: How often a session waiting for room looks again.
ROOM_POLL_S = 0.5
#: Seconds a control call (interrupt, why it died, close) may take before the node counts as gone.
CONTROL_S = 10.0


@dataclass(frozen=True)
class SessionSpec:
    """What a node needs to start a session: its placement, sandbox and tools."""

    need: Need
    sandbox: str
    options: dict[str, Any]
    tool_specs: list[Any]
    start_timeout: float


class RayPeer(KernelPeer):
    """The session's sandbox on a Ray node."""

    def __init__(self, spec: SessionSpec, ray: Any) -> None:
        super().__init__()
        self.spec = spec
        self.ray = ray
        self.sid = uuid.uuid4().hex
        self.host: Any = None
        #: Where the sandbox runs (``NodeHost.open``'s answer, without the token).
        self.where: dict[str, Any] = {}
        self._dead: set[str] = set()

    def label(self) -> str:
        """The node, as messages name it."""
        node = str(self.where.get("node_id", "?"))
        return f"{node[:12]} ({self.where.get('ip', '?')})"

    async def call(self, method: str, *args: Any, timeout: float | None = None) -> Any:
        """Call the session's host; a failure in the sandbox keeps its type (``UserError`` for a
        missing file), a failure of Ray (the node is gone) is an ``ExecutorError``."""
        if self.host is None:
            raise ExecutorError("the Ray sandbox is not running")
        try:
            with anyio.fail_after(timeout):
                return await getattr(self.host, method).remote(self.sid, *args)
        except self.ray.exceptions.RayTaskError as exc:
            cause = exc.as_instanceof_cause()
            if isinstance(cause, UserError | ExecutorError):
                raise type(cause)(str(cause).strip().splitlines()[-1]) from None
            raise ExecutorError(f"{method} failed on Ray node {self.label()}: {cause}") from exc
        except Exception as exc:
            raise ExecutorError(
                f"the Ray node {self.label()} running this session is gone ({type(exc).__name__})"
            ) from exc

    async def start(self) -> None:
        """Place the session on a node (another one when the chosen node fails) and connect."""
        spec, need = self.spec, self.spec.need
        problem: BaseException | None = None
        for _ in range(PLACE_ATTEMPTS):
            node_id = await self._reserve(need)
            try:
                self.host = await PLACEMENT.host(self.ray, node_id)
                with anyio.fail_after(spec.start_timeout):
                    opened = await self.host.open.remote(
                        self.sid, spec.sandbox, spec.options, spec.tool_specs
                    )
            except self.ray.exceptions.RayTaskError as exc:  # the sandbox itself failed
                self.host = None
                PLACEMENT.release(node_id, need)
                why = str(exc.as_instanceof_cause()).strip().splitlines()[-1]
                raise ExecutorError(
                    f"Ray node {node_id[:12]} could not start a sandbox: {why}"
                ) from None
            except Exception as exc:  # the node or its host is gone (or too slow)
                problem, self.host = exc, None
                self._dead.add(node_id)
                PLACEMENT.forget(node_id)
                continue
            except BaseException:
                PLACEMENT.release(node_id, need)
                raise
            try:
                await self._connect(opened)
            except BaseException:
                PLACEMENT.release(node_id, need)
                self.host = None
                raise
            return
        raise ExecutorError(
            f"No Ray node could start a sandbox for this session ({type(problem).__name__}). "
            "`codeact doctor --ray ADDRESS` shows which nodes can."
        ) from problem

    async def _reserve(self, need: Need) -> str:
        """A node with room, waiting (up to the start timeout) while the fitting ones are full."""
        with anyio.move_on_after(self.spec.start_timeout):
            while True:
                try:
                    return PLACEMENT.reserve(self.ray, need, self._dead)
                except NoRoom:
                    await anyio.sleep(ROOM_POLL_S)
        return PLACEMENT.reserve(self.ray, need, self._dead)  # the error says what is full

    async def _connect(self, opened: dict[str, Any]) -> None:
        """Connect to the session's relay on its node and prove we know its token."""
        token = opened.pop("token")
        ip, port = opened.pop("address")
        self.where = {**self.where, **opened}
        try:
            with anyio.fail_after(CONTROL_S):
                stream = await anyio.connect_tcp(ip, int(port))
                with contextlib.suppress(OSError):
                    sock = stream.extra(SocketAttribute.raw_socket)
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                await stream.send(str(token).encode())
        except (OSError, TimeoutError) as exc:
            with contextlib.suppress(ExecutorError):
                await self.call("close", timeout=CONTROL_S)
            raise ExecutorError(
                f"Cannot reach the sandbox's relay on Ray node {self.label()} at {ip}:{port} "
                f"({exc or type(exc).__name__}): this process must reach the nodes' addresses "
                "over TCP (ephemeral ports)"
            ) from None
        self.client = KernelClient(stream)

    async def restart(self) -> None:
        """A fresh kernel on the same node while its host answers; else a new session on a
        live node (its variables and files are lost)."""
        if self.retired:
            await self.stop()
            raise ExecutorError("the session was closed")
        old = self.client
        self.client = None
        if old is not None:
            with contextlib.suppress(Exception):
                await old.aclose()
        if self.host is not None:
            try:
                opened = await self.call("restart", timeout=self.spec.start_timeout)
            except ExecutorError:
                self._lost()
            else:
                await self._connect(opened)
                return
        await self.start()

    def _lost(self) -> None:
        node_id = str(self.where.get("node_id", ""))
        if node_id:
            self._dead.add(node_id)
            PLACEMENT.forget(node_id)
        self.host = None

    async def stop(self) -> None:
        """End the sandbox on its node; safe to call twice."""
        client, self.client = self.client, None
        with anyio.CancelScope(shield=True):
            if client is not None:
                with contextlib.suppress(Exception):
                    await client.aclose()
            if self.host is not None:
                with contextlib.suppress(ExecutorError):
                    await self.call("close", timeout=CONTROL_S)
                PLACEMENT.release(str(self.where.get("node_id", "")), self.spec.need)
                self.host = None

    async def death_reason(self) -> tuple[str, str]:
        """Why the kernel went away: from the node when its host answers; else the node died."""
        if self.host is not None:
            try:
                kind, message = await self.call("death_reason", timeout=CONTROL_S)
                return str(kind), f"{message} (on Ray node {self.label()})"
            except ExecutorError:
                pass
        label = self.label()
        self._lost()
        return "ExecutorError", (
            f"the Ray node {label} running this session died or left the cluster; the "
            "session's variables and files are lost, and a fresh session was started on "
            "another node"
        )

    async def interrupt(self) -> bool:
        """Ask the node to stop the running cell."""
        try:
            return bool(await self.call("interrupt", timeout=CONTROL_S))
        except ExecutorError:
            return False
