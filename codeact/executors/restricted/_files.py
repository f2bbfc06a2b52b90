"""Moving files in and out of a working directory that sandboxed code controls.

The sandbox may plant symlinks, FIFOs or devices, and swap folders for symlinks while the host
works (``renameat2(RENAME_EXCHANGE)``). So the host never acts on a path it resolved earlier: it
walks the path one component at a time from a descriptor of the working directory, refusing
symlinks at every step (``O_NOFOLLOW``), opens files non-blocking and accepts only regular ones,
and writes an upload under a fresh name (``O_EXCL``) that it renames into place.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import uuid
from pathlib import Path, PurePosixPath

from codeact.errors import UserError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(path: str) -> tuple[list[str], str]:
    rel = PurePosixPath(path)
    if rel.is_absolute() or not rel.parts or any(p in ("..", ".", "") for p in rel.parts):
        raise UserError(f"Paths must be relative to the working directory: {path!r}")
    if "\x00" in path:
        raise UserError(f"Paths cannot contain NUL bytes: {path!r}")
    return list(rel.parts[:-1]), rel.parts[-1]


def _walk(root: Path, folders: list[str], path: str, *, create: bool, uid: int | None) -> int:
    """A descriptor of the folder ``root/folders...``, never leaving ``root``."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in folders:
            try:
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise UserError(
                        f"No file {path!r} in the session's working directory"
                    ) from None
                os.mkdir(part, 0o755, dir_fd=fd)
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
                if uid is not None:
                    os.fchown(nfd, uid, uid)
            except OSError as exc:  # ELOOP / ENOTDIR: a symlink or a file where a folder should be
                raise UserError(
                    f"{path!r}: {part!r} is not a folder in the working directory ({exc.strerror})"
                ) from None
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_beneath(root: Path, path: str, data: bytes, uid: int | None = None) -> None:
    """Write ``data`` to ``root/path`` (folders made as needed, owned by ``uid`` if given)."""
    folders, name = _parts(path)
    dfd = _walk(root, folders, path, create=True, uid=uid)
    temp = f".codeact-upload-{uuid.uuid4().hex}"
    try:
        fd = os.open(
            temp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o644,
            dir_fd=dfd,
        )
        try:
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(fd, view) :]
            except OSError as exc:
                if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                    raise
                raise UserError(
                    f"Cannot upload {path!r}: the session's disk quota is full "
                    f"({exc.strerror}). Delete files in the sandbox, or give the executor a "
                    "larger disk_limit_mb (codeact: --session-disk)."
                ) from None
            if uid is not None:
                os.fchown(fd, uid, uid)
        finally:
            os.close(fd)
        try:
            os.replace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except OSError as exc:
            raise UserError(
                f"Cannot write {path!r} in the working directory: {exc.strerror}"
            ) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=dfd)
        os.close(dfd)


def read_beneath(root: Path, path: str) -> bytes:
    """The bytes of the regular file ``root/path``."""
    folders, name = _parts(path)
    dfd = _walk(root, folders, path, create=False, uid=None)
    try:
        try:
            fd = os.open(
                name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd
            )
        except FileNotFoundError:
            raise UserError(f"No file {path!r} in the session's working directory") from None
        except OSError as exc:
            raise UserError(f"Cannot read {path!r}: {exc.strerror}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise UserError(f"{path!r} is not a regular file in the working directory")
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)
    finally:
        os.close(dfd)
