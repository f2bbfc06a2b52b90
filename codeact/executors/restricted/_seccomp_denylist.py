"""The fallback seccomp filter (used only where libseccomp cannot be loaded): a hand-written
deny-list of the kernel interfaces a data-processing worker never needs and that kernel
exploits usually start from. ``_seccomp.py`` builds the real filter, an allow-list.

Denied with ``EPERM``: new namespaces (``unshare``, ``setns`` — on a root host bubblewrap runs
without a user namespace, so this is what keeps new user namespaces out), mounts and the new
mount API, ``chroot``/``pivot_root``, ``ptrace`` and ``process_vm_*``, kernel modules and
``kexec``, ``bpf``, ``perf_event_open``, ``userfaultfd``, the keyring, ``io_uring``, file-handle
opens, ``memfd_create`` (memory outside ``RLIMIT_AS``), ``inotify``/``fanotify`` (per-user
instances every session shares), ``clone`` with namespace flags, and sockets of families a data
worker has no use for (``AF_VSOCK`` reaches the VM host whatever the network namespace,
``AF_ALG``, ``AF_PACKET``, ``AF_XDP``...). ``clone3`` gets ``ENOSYS`` (its flags cannot be
inspected; libc falls back to ``clone``, which ``RLIMIT_NPROC=0`` refuses anyway). Other ABIs
than the native one (i386 and x32 on x86-64, arm32 on arm64) are refused whole. A deny-list of
a few dozen stable syscall numbers for two architectures: cheap to keep; on other architectures
no filter is installed.
"""

from __future__ import annotations

import platform
import struct

#: (syscall, x86-64 number, arm64 number; None where the architecture has no such call).
_DENIED: tuple[tuple[str, int | None, int | None], ...] = (
    ("unshare", 272, 97),
    ("setns", 308, 268),
    ("mount", 165, 40),
    ("umount2", 166, 39),
    ("pivot_root", 155, 41),
    ("chroot", 161, 51),
    ("ptrace", 101, 117),
    ("process_vm_readv", 310, 270),
    ("process_vm_writev", 311, 271),
    ("kexec_load", 246, 104),
    ("kexec_file_load", 320, 294),
    ("init_module", 175, 105),
    ("finit_module", 313, 273),
    ("delete_module", 176, 106),
    ("bpf", 321, 280),
    ("perf_event_open", 298, 241),
    ("userfaultfd", 323, 282),
    ("keyctl", 250, 219),
    ("add_key", 248, 217),
    ("request_key", 249, 218),
    ("io_uring_setup", 425, 425),
    ("io_uring_enter", 426, 426),
    ("io_uring_register", 427, 427),
    ("open_by_handle_at", 304, 265),
    ("name_to_handle_at", 303, 264),
    ("open_tree", 428, 428),
    ("move_mount", 429, 429),
    ("fsopen", 430, 430),
    ("fsconfig", 431, 431),
    ("fsmount", 432, 432),
    ("fspick", 433, 433),
    ("mount_setattr", 442, 442),
    ("acct", 163, 89),
    ("swapon", 167, 224),
    ("swapoff", 168, 225),
    ("reboot", 169, 142),
    ("quotactl", 179, 60),
    ("memfd_create", 319, 279),
    ("inotify_init", 253, None),
    ("inotify_init1", 294, 26),
    ("fanotify_init", 300, 262),
)
_SOCKET = {"x86_64": 41, "aarch64": 198}
_CLONE = {"x86_64": 56, "aarch64": 220}
_CLONE3 = 435
#: AF_KEY, AF_PACKET, AF_RDS, AF_LLC, AF_CAN, AF_TIPC, AF_BLUETOOTH, AF_ALG, AF_NFC, AF_VSOCK,
#: AF_QIPCRTR, AF_SMC, AF_XDP.
_DENIED_FAMILIES = (15, 17, 21, 26, 29, 30, 31, 38, 39, 40, 42, 43, 44)
#: CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
_CLONE_NAMESPACES = 0x7E020000
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_BIT = 0x40000000

# classic BPF
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (arg0's low 32 bits)


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _refuse(errno: int = _EPERM) -> bytes:
    return _insn(_RET_K, 0, 0, _ERRNO | errno)


def denylist_program(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine (``struct sock_filter[]``), or None when its
    architecture has no table here."""
    machine = machine or platform.machine()
    if machine not in _AUDIT_ARCH:
        return None
    column = 1 if machine == "x86_64" else 2
    denied = sorted({nr for row in _DENIED if isinstance(nr := row[column], int)})
    prog = [
        _insn(_LD_W_ABS, 0, 0, _ARCH),
        _insn(_JEQ_K, 1, 0, _AUDIT_ARCH[machine]),
        _refuse(),  # another ABI (i386, x32, arm32): refused whole
        _insn(_LD_W_ABS, 0, 0, _NR),
    ]
    if machine == "x86_64":
        prog += [_insn(_JGE_K, 0, 1, _X32_BIT), _refuse()]
    prog += [_insn(_JEQ_K, 0, 1, _CLONE3), _refuse(_ENOSYS)]
    for nr in denied:
        prog += [_insn(_JEQ_K, 0, 1, nr), _refuse()]
    # socket(family, ...): refuse the families in _DENIED_FAMILIES
    families = [b for fam in _DENIED_FAMILIES for b in (_insn(_JEQ_K, 0, 1, fam), _refuse())]
    prog += [_insn(_JEQ_K, 0, len(families) + 2, _SOCKET[machine]), _insn(_LD_W_ABS, 0, 0, _ARG0)]
    prog += [*families, _insn(_RET_K, 0, 0, _ALLOW)]
    # clone(flags, ...): refuse new namespaces
    prog += [
        _insn(_JEQ_K, 0, 3, _CLONE[machine]),
        _insn(_LD_W_ABS, 0, 0, _ARG0),
        _insn(_JSET_K, 0, 1, _CLONE_NAMESPACES),
        _refuse(),
    ]
    prog.append(_insn(_RET_K, 0, 0, _ALLOW))
    return b"".join(prog)
