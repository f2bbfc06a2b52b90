"""Files on the client side of the kernel protocol: paths checked before they leave the host,
and the tar archives the ``put``/``get`` frames carry (a kernel extracts them safely inside)."""

from __future__ import annotations

import io
import tarfile

from codeact.errors import ExecutorError, UserError


def check_relative(path: str) -> None:
    """``UserError`` unless ``path`` is relative and stays below the working area."""
    parts = path.replace("\\", "/").split("/")
    if not path or path.startswith("/") or ".." in parts or "\x00" in path:
        raise UserError(f"Paths must be relative to the working area (/workspace): {path!r}")


def tar_file(path: str, data: bytes) -> bytes:
    """A tar archive holding one regular file ``path`` with ``data`` (mode 0644)."""
    check_relative(path)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(path)
        info.size = len(data)
        info.mode = 0o644
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def untar_file(archive: bytes) -> bytes:
    """The bytes of the only regular file in ``archive``; the archive itself when it holds a
    folder (or anything else). Nothing is extracted to disk."""
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            members = tar.getmembers()
            if len(members) == 1 and members[0].isfile():
                f = tar.extractfile(members[0])
                if f is not None:
                    return f.read()
    except tarfile.TarError as exc:
        raise ExecutorError(f"The sandbox sent a malformed archive: {exc}") from None
    return archive
