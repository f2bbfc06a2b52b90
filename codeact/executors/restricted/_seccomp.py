"""The system-call filter of the bubblewrap sandbox: an allow-list built with libseccomp.

It starts from Docker's default profile for a container with no capabilities (the most-run
seccomp profile there is: moby's ``profiles/seccomp/default.json``) and narrows it to what a
data-processing worker needs. Everything not listed is refused with ``ENOSYS`` (so C libraries
that probe a newer call fall back to an older one); the calls below that kernel exploits
usually start from are refused with ``EPERM``, by name, so that a test can tell them apart.

Taken out of Docker's list, with the reason:

* ``io_uring_*`` — a large, often-exploited kernel surface no data library needs;
* ``memfd_create``/``memfd_secret`` — anonymous files (counted by the session's cgroup, but not
  needed), ``userfaultfd`` is not in Docker's list either;
* ``inotify_*``/``fanotify_mark`` — per-user instances shared by every session;
* SysV and POSIX message queues, semaphores and shared memory (``msg*``, ``mq_*``, ``sem*``,
  ``shm*``, ``ipc``) — a worker cannot start processes to talk to;
* ``ptrace``/``process_vm_*``/``pidfd_*``/``process_mrelease``/``kcmp`` — other processes;
* ``fork``/``vfork`` — the worker never starts a process (``RLIMIT_NPROC=0`` refuses it too);
* ``name_to_handle_at``, ``remap_file_pages``, ``vmsplice``, ``personality`` with flags;
* ``socket`` only for ``AF_UNIX``, ``AF_INET``, ``AF_INET6`` and ``AF_NETLINK`` (inside a network
  namespace with only loopback): not ``AF_VSOCK`` (reaches a VM's host whatever the namespace),
  ``AF_PACKET``, ``AF_ALG``...;
* ``clone`` only without namespace flags (threads), ``clone3`` → ``ENOSYS`` (its flags cannot
  be inspected; libc falls back to ``clone``), as in Docker's profile.

Added beyond Docker's list: nothing. Calls of other ABIs (i386 and x32 on x86-64, arm32 on arm64)
are refused whole. Where libseccomp cannot be loaded the hand-written deny-list of
``_seccomp_denylist`` is used instead, and ``filter_kind()`` says so (``codeact doctor``).
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from typing import Any

from codeact.executors.restricted._seccomp_denylist import denylist_program

#: Docker's default allow-list (no capabilities), less what is taken out above.
ALLOWED = """
accept accept4 access adjtimex alarm bind brk capget capset chdir chmod chown chown32
clock_adjtime clock_adjtime64 clock_getres clock_getres_time64 clock_gettime clock_gettime64
clock_nanosleep clock_nanosleep_time64 close close_range connect copy_file_range creat dup dup2
dup3 epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait
epoll_wait_old eventfd eventfd2 execve execveat exit exit_group faccessat faccessat2 fadvise64
fadvise64_64 fallocate fchdir fchmod fchmodat fchown fchown32 fchownat fcntl fcntl64 fdatasync
fgetxattr flistxattr flock fremovexattr fsetxattr fstat fstat64 fstatat64 fstatfs fstatfs64
fsync ftruncate ftruncate64 futex futex_time64 futex_waitv futimesat getcpu getcwd getdents
getdents64 getegid getegid32 geteuid geteuid32 getgid getgid32 getgroups getgroups32 getitimer
getpeername getpgid getpgrp getpid getppid getpriority getrandom getresgid getresgid32
getresuid getresuid32 getrlimit get_robust_list getrusage getsid getsockname getsockopt
get_thread_area gettid gettimeofday getuid getuid32 getxattr io_cancel ioctl io_destroy
io_getevents io_pgetevents io_pgetevents_time64 ioprio_get ioprio_set io_setup io_submit kill
landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown lchown32 lgetxattr link
linkat listen listxattr llistxattr _llseek lremovexattr lseek lsetxattr lstat lstat64 madvise
membarrier mincore mkdir mkdirat mknod mknodat mlock mlock2 mlockall mmap mmap2 mprotect mremap
msync munlock munlockall munmap nanosleep newfstatat _newselect open openat openat2 pause pipe
pipe2 pkey_alloc pkey_free pkey_mprotect poll ppoll ppoll_time64 prctl pread64 preadv preadv2
prlimit64 pselect6 pselect6_time64 pwrite64 pwritev pwritev2 read readahead readlink readlinkat
readv recv recvfrom recvmmsg recvmmsg_time64 recvmsg removexattr rename renameat renameat2
restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo
rt_sigreturn rt_sigsuspend rt_sigtimedwait rt_sigtimedwait_time64 rt_tgsigqueueinfo
sched_getaffinity sched_getattr sched_getparam sched_get_priority_max sched_get_priority_min
sched_getscheduler sched_rr_get_interval sched_rr_get_interval_time64 sched_setaffinity
sched_setattr sched_setparam sched_setscheduler sched_yield seccomp select send sendfile
sendfile64 sendmmsg sendmsg sendto setfsgid setfsgid32 setfsuid setfsuid32 setgid setgid32
setgroups setgroups32 setitimer setpgid setpriority setregid setregid32 setresgid setresgid32
setresuid setresuid32 setreuid setreuid32 setrlimit set_robust_list setsid setsockopt
set_thread_area set_tid_address setuid setuid32 setxattr shutdown sigaltstack signalfd
signalfd4 sigprocmask sigreturn socketcall socketpair splice stat stat64 statfs statfs64 statx
symlink symlinkat sync sync_file_range syncfs sysinfo tee tgkill time timer_create timer_delete
timer_getoverrun timer_gettime timer_gettime64 timer_settime timer_settime64 timerfd_create
timerfd_gettime timerfd_gettime64 timerfd_settime timerfd_settime64 times tkill truncate
truncate64 ugetrlimit umask uname unlink unlinkat utime utimensat utimensat_time64 utimes wait4
waitid waitpid write writev arch_prctl modify_ldt
""".split()

#: Refused with EPERM by name (everything else not allowed gets ENOSYS).
DENIED = """
unshare setns mount umount2 pivot_root chroot ptrace process_vm_readv process_vm_writev
kexec_load kexec_file_load init_module finit_module delete_module bpf perf_event_open
userfaultfd keyctl add_key request_key io_uring_setup io_uring_enter io_uring_register
open_by_handle_at name_to_handle_at open_tree move_mount fsopen fsconfig fsmount fspick
mount_setattr acct swapon swapoff reboot quotactl memfd_create memfd_secret inotify_init
inotify_init1 inotify_add_watch fanotify_init fanotify_mark fork vfork pidfd_open
pidfd_send_signal pidfd_getfd kcmp process_madvise process_mrelease vmsplice
remap_file_pages msgget msgsnd msgrcv msgctl semget semop semtimedop semctl shmget shmat shmdt
shmctl mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr ipc syslog
sethostname setdomainname settimeofday clock_settime iopl ioperm lookup_dcookie
""".split()

_EXEC = ("execve", "execveat")

#: AF_UNIX, AF_INET, AF_INET6, AF_NETLINK.
SOCKET_FAMILIES = (1, 2, 10, 16)
#: CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (Docker's mask).
CLONE_NAMESPACES = 0x7E020000
#: personality(2) values Docker allows: PER_LINUX, UNAME26, ADDR_NO_RANDOMIZE combos, query.
PERSONALITIES = (0, 8, 0x20000, 0x20008, 0xFFFFFFFF)


def _build(sc: Any, exec_allowed: bool = True) -> Any:
    f = sc.SyscallFilter(sc.ERRNO(errno.ENOSYS))
    f.set_attr(sc.Attr.ACT_BADARCH, sc.ERRNO(errno.EPERM))
    allowed, denied = ALLOWED, DENIED
    if not exec_allowed:
        allowed = [n for n in ALLOWED if n not in _EXEC]
        denied = [*DENIED, *_EXEC]
    for names, action in ((allowed, sc.ALLOW), (denied, sc.ERRNO(errno.EPERM))):
        for name in names:
            try:
                f.add_rule(action, name)
            except (OSError, ValueError, RuntimeError):
                continue  # not a call of this architecture, or unknown to this libseccomp
    for family in SOCKET_FAMILIES:
        f.add_rule(sc.ALLOW, "socket", sc.Arg(0, sc.EQ, family))
    f.add_rule(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_NAMESPACES, 0))
    # clone3 is refused with ENOSYS by the default action (libseccomp rejects a rule that
    # repeats the default)
    for value in PERSONALITIES:
        f.add_rule(sc.ALLOW, "personality", sc.Arg(0, sc.EQ, value))
    return f


@functools.lru_cache(maxsize=2)
def _allowlist_program(exec_allowed: bool = True) -> bytes | None:
    try:
        import pyseccomp as sc
    except (ImportError, OSError) as exc:  # the package, or libseccomp.so.2, is missing
        _WHY_NOT[:] = [f"libseccomp cannot be loaded ({exc}): apt-get install libseccomp2"]
        return None
    try:
        program = _build(sc, exec_allowed)
        with tempfile.TemporaryFile() as out:
            program.export_bpf(out)
            out.seek(0)
            return out.read()
    except (OSError, ValueError, RuntimeError) as exc:
        _WHY_NOT[:] = [f"libseccomp could not build the allow-list ({exc})"]
        return None


#: Why the allow-list is not used (for ``filter_kind``), once something tried to build it.
_WHY_NOT: list[str] = []


def _allowlist_wanted() -> bool:
    """``CODEACT_SECCOMP=denylist`` asks for the fallback filter (tests, comparisons)."""
    return os.environ.get("CODEACT_SECCOMP") != "denylist"


def filter_kind() -> str:
    """Which filter the sandbox gets: ``"allow-list (libseccomp)"``, the fallback
    ``"deny-list"`` or ``"none"`` (no table for this architecture), with why libseccomp was
    not used."""
    if _allowlist_wanted() and _allowlist_program() is not None:
        return "allow-list (libseccomp)"
    why = f" ({_WHY_NOT[0]})" if _WHY_NOT else ""
    return f"deny-list{why}" if denylist_program() is not None else f"none{why}"


def worker_program() -> bytes | None:
    """The filter the worker installs on itself once it runs (stacked on bubblewrap's, and the
    only one without bubblewrap): the same allow-list without ``execve``/``execveat``, so code
    that gets past the guards cannot replace the worker with another program. None without
    libseccomp."""
    return _allowlist_program(False) if _allowlist_wanted() else None


def seccomp_program() -> bytes | None:
    """The compiled filter (``struct sock_filter[]``) for bubblewrap's ``--seccomp``: the
    libseccomp allow-list, else the hand-written deny-list, else None."""
    program = _allowlist_program() if _allowlist_wanted() else None
    return program if program is not None else denylist_program()
