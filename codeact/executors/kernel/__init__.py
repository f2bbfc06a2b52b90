"""The in-container kernel (stdlib only). ``KERNEL_SOURCE`` is sent to ``python3 -c BOOTSTRAP``."""

from __future__ import annotations

from pathlib import Path

KERNEL_SOURCE = (Path(__file__).parent / "kernel.py").read_text(encoding="utf-8")

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
