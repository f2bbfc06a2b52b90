"""The in-container kernel (stdlib only). ``KERNEL_SOURCE`` is sent to ``python3 -c BOOTSTRAP``."""

from __future__ import annotations

from pathlib import Path


def _source() -> str:
    """kernel.py, preceded by the restricted executor's rich-output capture (``_rich.py``,
    stdlib only): figures, tables and written files are collected the same way in both."""
    here = Path(__file__).parent
    rich = (here.parent / "restricted" / "_rich.py").read_text(encoding="utf-8")
    rich = rich.replace("from __future__ import annotations\n", "", 1)
    kernel = (here / "kernel.py").read_text(encoding="utf-8")
    return "from __future__ import annotations\n" + rich + "\n" + kernel


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
