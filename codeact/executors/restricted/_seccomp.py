"""A small seccomp filter for the bubblewrap sandbox: the kernel interfaces a data-processing
worker never needs and that kernel exploits usually start from.

Denied with ``EPERM``: new namespaces (``unshare``, ``setns`` — on a root host bubblewrap runs
without a user namespace, so this is what keeps new user namespaces out), mounts and the new
mount API, ``chroot``/``pivot_root``, ``ptrace`` and ``process_vm_*``, kernel modules and
``kexec``, ``bpf``, ``perf_event_open``, ``userfaultfd``, the keyring, ``io_uring``, file-handle
opens. ``clone3`` gets ``ENOSYS`` (its flags cannot be inspected; libc falls back to ``clone``,
which ``RLIMIT_NPROC=0`` refuses anyway). Other ABIs than the native one (i386 and x32 on
x86-64, arm32 on arm64) are refused whole. A deny-list of a few dozen stable syscall numbers for
two architectures: cheap to keep; on other architectures no filter is installed.
"""

from __future__ import annotations

import platform
import struct

_NAMES = (
    "unshare setns mount umount2 pivot_root chroot ptrace process_vm_readv process_vm_writev "
    "kexec_load kexec_file_load init_module finit_module delete_module bpf perf_event_open "
    "userfaultfd keyctl add_key request_key io_uring_setup io_uring_enter io_uring_register "
    "open_by_handle_at name_to_handle_at open_tree move_mount fsopen fsconfig fsmount fspick "
    "mount_setattr acct swapon swapoff reboot quotactl"
).split()
#: Syscall numbers per architecture (x86-64 table; arm64 uses the generic table).
_NUMBERS = {
    "x86_64": dict(
        zip(
            _NAMES,
            [
                272,
                308,
                165,
                166,
                155,
                161,
                101,
                310,
                311,
                246,
                320,
                175,
                313,
                176,
                321,
                298,
                323,
                250,
                248,
                249,
                425,
                426,
                427,
                304,
                303,
                428,
                429,
                430,
                431,
                432,
                433,
                442,
                163,
                167,
                168,
                169,
                179,
            ],
            strict=True,
        )
    ),
    "aarch64": dict(
        zip(
            _NAMES,
            [
                97,
                268,
                40,
                39,
                41,
                51,
                117,
                270,
                271,
                104,
                294,
                105,
                273,
                106,
                280,
                241,
                282,
                219,
                217,
                218,
                425,
                426,
                427,
                265,
                264,
                428,
                429,
                430,
                431,
                432,
                433,
                442,
                89,
                224,
                225,
                142,
                60,
            ],
            strict=True,
        )
    ),
}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_CLONE3 = 435
_X32_BIT = 0x40000000

# classic BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def seccomp_program(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine (``struct sock_filter[]``), or None when its
    architecture has no table here."""
    machine = machine or platform.machine()
    numbers = _NUMBERS.get(machine)
    if numbers is None:
        return None
    denied = sorted(set(numbers.values()))
    body: list[bytes] = [
        _insn(_LD_W_ABS, 0, 0, 4),  # A = seccomp_data.arch
        _insn(_JEQ_K, 1, 0, _AUDIT_ARCH[machine]),
        _insn(_RET_K, 0, 0, _ERRNO | _EPERM),  # another ABI: refused whole
        _insn(_LD_W_ABS, 0, 0, 0),  # A = seccomp_data.nr
    ]
    if machine == "x86_64":
        body += [_insn(_JGE_K, 0, 1, _X32_BIT), _insn(_RET_K, 0, 0, _ERRNO | _EPERM)]
    body += [_insn(_JEQ_K, 0, 1, _CLONE3), _insn(_RET_K, 0, 0, _ERRNO | _ENOSYS)]
    for nr in denied:
        body += [_insn(_JEQ_K, 0, 1, nr), _insn(_RET_K, 0, 0, _ERRNO | _EPERM)]
    body.append(_insn(_RET_K, 0, 0, _ALLOW))
    return b"".join(body)
