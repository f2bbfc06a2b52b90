"""A session's files on the host: a folder with a disk quota, removed without stalling.

Each session gets ``<tmp>/codeact-sessions/<owner>-<random>/`` holding ``workspace/`` (the
working directory cells see) and ``tmp/`` (their private ``/tmp`` in the OS sandbox). On a root
host the folder is a tmpfs of its own, mounted ``nosuid,nodev,noexec`` with a size and an inode
cap: a cell that fills it gets ``ENOSPC`` and the host's disk is never touched; its pages are
charged to the memory of whoever wrote them (the session's cgroup for the worker's files).
Closing a session detaches that mount, which frees everything in one step however many files
or however deep the tree. Where mounting is not allowed the folder is a plain one on the host's
temporary disk (``quota`` False) and the RLIMIT on file size is the only cap.

``owner`` (``<pid>.<start time>`` of the host process) lets ``reap_workspaces`` remove what a
crashed process left behind, never what a live one uses.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import stat
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from codeact.executors._owner import owner_alive, owner_id

_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 2, 4, 8
_MNT_DETACH = 2


def sessions_root() -> Path:
    """Where session folders live: ``<tmp>/codeact-sessions`` (``CODEACT_SESSIONS_DIR``
    overrides)."""
    override = os.environ.get("CODEACT_SESSIONS_DIR")
    return Path(override) if override else Path(tempfile.gettempdir()) / "codeact-sessions"


def quota_possible() -> bool:
    """Whether this process may mount a quota'd tmpfs per session (root, not turned off by
    ``CODEACT_NO_QUOTA=1``)."""
    return os.geteuid() == 0 and os.environ.get("CODEACT_NO_QUOTA") != "1"


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _mount_tmpfs(target: Path, size: int, inodes: int) -> None:
    options = f"size={size},nr_inodes={inodes},mode=0755".encode()
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if _libc().mount(b"codeact", str(target).encode(), b"tmpfs", flags, options) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(target))


def _unmount(target: Path) -> None:
    if _libc().umount2(str(target).encode(), _MNT_DETACH) != 0:
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOENT):  # EINVAL: not a mount point
            raise OSError(err, os.strerror(err), str(target))


@dataclass
class Workspace:
    """One session's folder: ``workdir`` for cells, ``tmpdir`` for their ``/tmp``."""

    root: Path
    quota: bool
    disk_bytes: int
    max_files: int
    #: Why there is no quota (empty when there is one).
    no_quota_reason: str = ""

    @property
    def workdir(self) -> Path:
        """The working directory (``/workspace`` in the OS sandbox)."""
        return self.root / "workspace"

    @property
    def tmpdir(self) -> Path:
        """The private temporary folder (``/tmp`` in the OS sandbox)."""
        return self.root / "tmp"

    @classmethod
    def create(cls, disk_bytes: int, max_files: int, uid: int | None = None) -> Workspace:
        """Make the folder, with a quota'd tmpfs where this process may mount one; ``uid``
        (a root host's sandbox user) owns ``workspace`` and ``tmp``. Blocking."""
        base = sessions_root()
        base.mkdir(mode=0o711, parents=True, exist_ok=True)
        root = base / f"{owner_id()}-{uuid.uuid4().hex[:12]}"
        root.mkdir(mode=0o755)
        quota = quota_possible()
        why = (
            "turned off by CODEACT_NO_QUOTA=1"
            if os.environ.get("CODEACT_NO_QUOTA") == "1"
            else "mounting a size-limited tmpfs needs root"
        )
        if quota:
            try:
                _mount_tmpfs(root, disk_bytes, max_files)
            except OSError as exc:
                quota, why = False, f"mounting a tmpfs failed: {exc.strerror}"
        space = cls(root, quota, disk_bytes, max_files, "" if quota else why)
        try:
            space.workdir.mkdir(mode=0o755)
            space.tmpdir.mkdir(mode=0o1777)
            os.chmod(space.tmpdir, 0o1777)
            if uid is not None:
                os.chown(space.workdir, uid, uid)
                os.chown(space.tmpdir, uid, uid)
        except BaseException:
            space.remove()
            raise
        return space

    def remove(self) -> None:
        """Delete everything (blocking: run it in a thread). A quota'd folder is unmounted in
        one step; a plain one is removed without recursion."""
        if self.quota:
            with contextlib.suppress(OSError):
                _unmount(self.root)
        remove_tree(self.root)

    def usage(self) -> tuple[int, int]:
        """(bytes, files) in use in a quota'd folder (``statvfs``); (0, 0) for a plain one."""
        if not self.quota:
            return 0, 0
        st = os.statvfs(self.root)
        used = (st.f_blocks - st.f_bfree) * st.f_frsize
        return used, st.f_files - st.f_ffree


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything in it, iteratively and with at most two descriptors open:
    any depth (beyond ``PATH_MAX``), any number of files, read-only folders (made writable),
    never following a symlink. Missing is fine. Blocking."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        path.unlink()
        return
    fd = os.open(path, _DIR)
    trail: list[tuple[str, int, int]] = []  # (name in parent, parent's dev, parent's ino)
    pending = [_clear_files(fd)]  # per level: the subfolders still to remove
    try:
        while True:
            if pending[-1]:
                child = pending[-1].pop()
                here = os.fstat(fd)
                with contextlib.suppress(OSError):
                    os.chmod(child, 0o700, dir_fd=fd, follow_symlinks=False)
                nfd = os.open(child, _DIR, dir_fd=fd)
                os.close(fd)
                fd = nfd
                trail.append((child, here.st_dev, here.st_ino))
                pending.append(_clear_files(fd))
                continue
            pending.pop()
            if not trail:
                break
            name, dev, ino = trail.pop()
            parent = os.open("..", _DIR, dir_fd=fd)
            os.close(fd)
            fd = parent
            up = os.fstat(fd)
            if (up.st_dev, up.st_ino) != (dev, ino):
                raise OSError(errno.ESTALE, f"{path}: the tree moved while it was removed")
            os.rmdir(name, dir_fd=fd)
    finally:
        os.close(fd)
    with contextlib.suppress(FileNotFoundError):
        os.rmdir(path)


def _clear_files(fd: int) -> list[str]:
    """Unlink every non-folder in the folder ``fd``; return the names of its subfolders."""
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o700)
    with os.scandir(fd) as entries:
        names = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    folders = []
    for name, is_dir in names:
        if is_dir:
            folders.append(name)
        else:
            os.unlink(name, dir_fd=fd)
    return folders


def reap_workspaces() -> tuple[int, list[str]]:
    """Remove the session folders of host processes that no longer run (a crash, ``kill -9``);
    returns how many, and what could not be removed. Folders of live processes are never
    touched. Blocking."""
    removed, problems = 0, []
    try:
        entries = list(sessions_root().iterdir())
    except FileNotFoundError:
        return 0, []
    for entry in entries:
        owner = entry.name.rsplit("-", 1)[0]
        if owner == owner_id() or owner_alive(owner):
            continue
        try:
            if os.path.ismount(entry):
                _unmount(entry)
            remove_tree(entry)
        except FileNotFoundError:
            continue  # another reaper got there first
        except OSError as exc:
            problems.append(f"session folder {entry}: {exc.strerror or exc}")
            continue
        removed += 1
    return removed, problems
