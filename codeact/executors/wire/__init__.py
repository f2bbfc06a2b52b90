"""The kernel kit: codeact's frame protocol on the host side, public for backend authors.

A *kernel* is a Python process that speaks length-prefixed JSON frames (``frames``): the
container kernel (``codeact.executors.kernel``, stdlib only, shipped into any image with
Python 3) and the process worker of ``RestrictedExecutor`` both do. A backend starts one
somewhere, hands ``KernelClient`` an ``anyio.abc.ByteStream`` to it, and keeps only the
lifecycle (``KernelPeer``: start, stop, why it died, how to interrupt it). ``run_cell`` serves
a cell — output streamed and capped, tool calls run on the host, a lost peer replaced, a
cancelled cell interrupted — and ``to_result`` turns the (untrusted) result frame into an
``ExecutionResult``. ``KernelBackedExecutor`` is the whole ``CodeExecutor`` on top: a new
backend writes ``open_peer`` and a ``KernelPeer`` (README, "Plug your own executor").

Names load lazily: the sandboxed worker imports ``codeact.executors.wire.frames`` alone
(stdlib only, cheap), and ``import codeact.executors.wire`` loads nothing more.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codeact.executors.wire.cells import CellOutput, run_host_tool, to_result
    from codeact.executors.wire.client import STREAM_GONE, KernelClient, KernelLost
    from codeact.executors.wire.executor import KernelBackedExecutor
    from codeact.executors.wire.files import check_relative, tar_file, untar_file
    from codeact.executors.wire.frames import (
        HEADER,
        HOST_OPS,
        MAX_FRAME,
        WORKER_OPS,
        ProtocolError,
        decode_worker_frame,
        encode,
        raw_frame,
    )
    from codeact.executors.wire.session import (
        KernelPeer,
        RestartableKernel,
        interrupt_cell,
        run_cell,
    )

_HOMES = {
    "CellOutput": "cells",
    "run_host_tool": "cells",
    "to_result": "cells",
    "STREAM_GONE": "client",
    "KernelClient": "client",
    "KernelLost": "client",
    "KernelBackedExecutor": "executor",
    "check_relative": "files",
    "tar_file": "files",
    "untar_file": "files",
    "HEADER": "frames",
    "HOST_OPS": "frames",
    "MAX_FRAME": "frames",
    "WORKER_OPS": "frames",
    "ProtocolError": "frames",
    "decode_worker_frame": "frames",
    "encode": "frames",
    "raw_frame": "frames",
    "KernelPeer": "session",
    "RestartableKernel": "session",
    "KernelSession": "session",  # deprecated: RestartableKernel (warns)
    "interrupt_cell": "session",
    "run_cell": "session",
}

__all__ = [
    "CellOutput",
    "HEADER",
    "HOST_OPS",
    "KernelBackedExecutor",
    "KernelClient",
    "KernelLost",
    "KernelPeer",
    "MAX_FRAME",
    "ProtocolError",
    "RestartableKernel",
    "STREAM_GONE",
    "WORKER_OPS",
    "check_relative",
    "decode_worker_frame",
    "encode",
    "interrupt_cell",
    "raw_frame",
    "run_cell",
    "run_host_tool",
    "tar_file",
    "to_result",
    "untar_file",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'codeact.executors.wire' has no attribute {name!r}")
    return getattr(importlib.import_module(f"codeact.executors.wire.{home}"), name)
