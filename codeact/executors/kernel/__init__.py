"""The in-container kernel (stdlib only). ``KERNEL_SOURCE`` is sent to ``python3 -c BOOTSTRAP``.

The kernel is one source made of parts that run in one namespace, in this order: the restricted
executor's rich-output capture (``restricted/_rich.py``: figures, tables and written files are
collected the same way in both), ``_channel`` (frames and captured output), ``_files`` (tars in
and out), ``_awaiting`` (awaiting host tools) and ``kernel`` (cells, tools, the main loop, which
starts when the source runs). A part uses the names of the parts before it without importing
them (nothing of codeact exists in the sandbox); ``tests/executors/test_wire.py`` checks the
joined source for undefined names.
"""

from __future__ import annotations

from pathlib import Path

#: The kernel's parts, in the order they are joined (paths relative to ``codeact/executors``).
PARTS = ("restricted/_rich.py", "kernel/_channel.py", "kernel/_files.py", "kernel/_awaiting.py",
         "kernel/kernel.py")  # fmt: skip


def _source() -> str:
    """The parts joined into one module (each part's ``from __future__`` line moved to the top)."""
    root = Path(__file__).parent.parent
    future = "from __future__ import annotations\n"
    parts = [(root / part).read_text(encoding="utf-8").replace(future, "", 1) for part in PARTS]
    return future + "\n".join(parts)


KERNEL_SOURCE = _source()

#: The container command: read one frame (the kernel's source) from stdin and run it. Works with
#: any image that has Python 3, so nothing has to be installed in the image.
BOOTSTRAP = """\
import os, struct
def read(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            raise SystemExit(1)
        data += chunk
    return data
source = read(struct.unpack(">I", read(4))[0])
exec(compile(source, "codeact-kernel", "exec"), {"__name__": "__codeact_kernel__"})
"""
