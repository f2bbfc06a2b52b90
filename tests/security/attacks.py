"""Attacks on the sandbox that ``codeact run`` / ``codeact serve`` build, with pandas and numpy.

Two kinds of attempt, each with the specific thing that must not happen:

* ``DATA`` — cells that use only the opted-in libraries' own API (readers, writers, URL
  openers): they run as they are in every backend.
* ``RAW`` — plain Python that assumes the language guards have fallen (``os``, ``socket``,
  ``ctypes``...). Under the restricted executor it reaches the worker the way a real exploit
  would: the cell writes a crafted ``.npy`` file and loads it with ``allow_pickle=True``, whose
  pickle runs the code unguarded inside the worker. Under Docker, cells are plain Python already.

Each attempt prints one line ``RESULT <json>`` (``{"ok": bool, "out": str}``) or fails with an
error; the host-side checks in ``test_os_sandbox.py`` look at planted secrets, marker files, a
loopback listener and a victim process — never at what the sandbox claims.
"""

from __future__ import annotations

import base64
import pickle
from dataclasses import dataclass, field

#: What every attempt is checked for, besides its own ``expect``.
COMMON = ("no_secret", "no_marker", "no_connection", "victim_alive")


@dataclass(frozen=True)
class Attempt:
    id: str
    code: str  # a template: {secret_file} {db} {marker} {port} {victim} {abstract} {project}
    raw: bool = False
    #: Extra host-side expectations: "fails" (must raise or report ok=False), "lo_only", "no_fork".
    expect: tuple[str, ...] = ()
    #: Expectations under Docker, where cells are plain Python in the container (default: the
    #: same); e.g. a subprocess is allowed there — only its effect on the host is checked.
    docker_expect: tuple[str, ...] | None = None
    backends: tuple[str, ...] = field(default=("restricted", "docker"))


_TRY = (
    "import json\n"
    "def _report(fn):\n"
    "    try:\n"
    "        line = json.dumps({{'ok': True, 'out': repr(fn())[:50000]}})\n"
    "    except BaseException as exc:\n"
    "        line = json.dumps({{'ok': False, 'out': type(exc).__name__ + ': ' + str(exc)[:500]}})\n"
    "    print('RESULT ' + line)\n"
    "    with open('attack-result.txt', 'w') as f:\n"  # unguarded code has no captured stdout
    "        f.write('RESULT ' + line)\n"
)


def raw(id: str, body: str, *expect: str, docker: tuple[str, ...] | None = None) -> Attempt:
    """An unguarded attempt: ``body`` defines ``attack()``; its outcome is reported."""
    code = _TRY + body + "\n_report(attack)\n"
    return Attempt(id, code, raw=True, expect=expect, docker_expect=docker)


def data(id: str, code: str, *expect: str, restricted_only: bool = False) -> Attempt:
    """A cell using pandas/numpy only (``pd``/``np`` imported)."""
    backends = ("restricted",) if restricted_only else ("restricted", "docker")
    code = "import pandas as pd\nimport numpy as np\n" + code
    return Attempt(id, code, expect=expect, backends=backends)


DATA = [
    # -- reading host files by absolute path, .., symlink, /proc ----------------------------------
    data("pd_read_abs_secret", "print(pd.read_csv('{secret_file}', header=None))", "fails"),
    data("np_loadtxt_abs_secret", "print(np.loadtxt('{secret_file}', dtype=str))", "fails"),
    data("np_genfromtxt_secret", "print(np.genfromtxt('{secret_file}', dtype=str))", "fails"),
    data("pd_read_dotdot_secret", "print(pd.read_csv('../../../../../..{secret_file}'))", "fails"),
    data(
        "pd_read_server_db", "print(pd.read_csv('{db}', encoding='latin1', sep='\\x01'))", "fails"
    ),
    data("pd_read_server_db_wal", "print(pd.read_csv('{db}-wal', encoding='latin1'))", "fails"),
    data(
        "pd_read_symlink_in_workdir",
        "print(pd.read_csv('planted_link.txt', header=None))",
        "fails",
        restricted_only=True,
    ),
    data(
        "pd_read_proc_root",
        "print(pd.read_csv('/proc/self/root{secret_file}', header=None))",
        "fails",
    ),
    data(
        "pd_read_proc_cwd_escape",
        "print(pd.read_csv('/proc/self/cwd/../../../..{secret_file}', header=None))",
        "fails",
    ),
    data(
        "pd_read_host_pid_environ",
        "print(pd.read_csv('/proc/{host_pid}/environ', header=None, sep='\\x01'))",
        "fails",
    ),
    data(
        "np_read_host_pid_cwd",
        "print(np.loadtxt('/proc/{host_pid}/cwd/{secret_name}', dtype=str))",
        "fails",
    ),
    data("np_read_pid1_environ", "print(np.fromfile('/proc/1/environ', dtype=np.uint8).tobytes())"),
    data(
        "pd_read_parent_fd",
        "print([pd.read_csv(f'/proc/1/fd/{{i}}', header=None) for i in range(3, 12)])",
    ),
    data("pd_read_shadow", "print(pd.read_csv('/etc/shadow', header=None, sep='\\x01'))", "fails"),
    data(
        "pd_read_root_home",
        "print(pd.read_csv('/root/.bashrc', header=None, sep='\\x01'))",
        "fails",
    ),
    data(
        "pd_read_project_checkout",
        "print(pd.read_csv('{project}', header=None, sep='\\x01'))",
        "fails",
    ),
    data("pd_read_host_tmp", "print(pd.read_csv('{secret_dir}/README', header=None))", "fails"),
    data("pd_read_file_url", "print(pd.read_csv('file://{secret_file}', header=None))", "fails"),
    data("pd_read_docker_socket", "print(pd.read_csv('/var/run/docker.sock'))", "fails"),
    # -- writing outside the working directory -----------------------------------------------------
    data("pd_to_csv_host_tmp", "pd.DataFrame({{'a': [1]}}).to_csv('{marker}')"),
    data("pd_to_csv_dotdot", "pd.DataFrame({{'a': [1]}}).to_csv('../../../../../..{marker}')"),
    data("np_savetxt_host_tmp", "np.savetxt('{marker}', np.arange(3))"),
    data("pd_to_json_project", "pd.DataFrame({{'a': [1]}}).to_json('{project_dir}/pwned.json')"),
    data("pd_to_csv_root", "pd.DataFrame({{'a': [1]}}).to_csv('/pwned.csv')"),
    data("np_save_site_packages", "np.save('{site}/pwned.npy', np.arange(3))"),
    data(
        "pd_fill_tmp",
        "big = np.zeros(40 * 1024 * 1024 // 8)\n"
        "for i in range(30):\n    np.save(f'/tmp/fill{{i}}.npy', big)",  # past the 1 GiB quota
        "fails",
    ),
    # -- network: loopback, the server itself, external -------------------------------------------
    data("pd_url_loopback", "print(pd.read_csv('http://127.0.0.1:{port}/x.csv'))", "fails"),
    data("pd_url_localhost_json", "print(pd.read_json('http://localhost:{port}/x.json'))", "fails"),
    data("np_url_loopback", "print(np.genfromtxt('http://127.0.0.1:{port}/x.txt'))", "fails"),
    data("pd_url_ipv6_loopback", "print(pd.read_csv('http://[::1]:{port}/x.csv'))", "fails"),
    data("pd_html_loopback", "print(pd.read_html('http://127.0.0.1:{port}/'))", "fails"),
    data("pd_net_interfaces", "print(pd.read_csv('/proc/net/dev', sep='\\x01'))", "lo_only"),
    data("pd_net_tcp_sees_host_listener", "print(pd.read_csv('/proc/net/tcp', sep='\\x01'))"),
]

DATA += [
    data(
        "np_ctypeslib_from_guarded_code",
        "libc = np.ctypeslib.load_library('libc.so.6', '/usr/lib/x86_64-linux-gnu')\n"
        "print(libc.getuid())",
        "fails",
        restricted_only=True,
    ),
]

RAW = [
    raw("raw_read_secret", "def attack():\n    return open('{secret_file}').read()", "fails"),
    raw("raw_read_db", "def attack():\n    return open('{db}', 'rb').read()", "fails"),
    raw(
        "raw_list_host_tmp",
        "import os\ndef attack():\n    return os.listdir('{secret_dir}')",
        "fails",
    ),
    raw(
        "raw_host_environ",
        "def attack():\n    return open('/proc/{host_pid}/environ', 'rb').read()",
        "fails",
    ),
    raw(
        "raw_environ_all_pids",
        "import os\ndef attack():\n"
        "    out = []\n"
        "    for p in os.listdir('/proc'):\n"
        "        if p.isdigit():\n"
        "            try: out.append(open(f'/proc/{{p}}/environ', 'rb').read())\n"
        "            except OSError: pass\n"
        "    return out",
    ),
    raw("raw_write_marker", "def attack():\n    open('{marker}', 'w').write('pwned')"),
    raw(
        "raw_system",
        "import os\ndef attack():\n    rc = os.system('touch {marker}')\n    assert rc == 0, rc",
    ),
    raw(
        "raw_subprocess",
        "import subprocess\ndef attack():\n"
        "    return subprocess.run(['/bin/sh', '-c', 'touch {marker}'], check=True)",
        "fails",
        docker=(),  # a shell inside the container is fine: the host marker is what counts
    ),
    raw(
        "raw_connect_loopback",
        "import socket\ndef attack():\n"
        "    return socket.create_connection(('127.0.0.1', {port}), timeout=3)",
        "fails",
    ),
    raw(
        "raw_connect_v6",
        "import socket\ndef attack():\n"
        "    return socket.create_connection(('::1', {port}), timeout=3)",
        "fails",
    ),
    raw(
        "raw_abstract_unix",
        "import socket\ndef attack():\n"
        "    s = socket.socket(socket.AF_UNIX)\n    s.connect('\\0{abstract}')\n    return s",
        "fails",
    ),
    raw("raw_kill_victim", "import os\ndef attack():\n    os.kill({victim}, 9)", "fails"),
    raw(
        "raw_kill_all",
        "import os, signal\ndef attack():\n"
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n    os.kill(-1, signal.SIGTERM)",
    ),
    raw(
        "raw_see_host_processes",
        "import os\ndef attack():\n"
        "    pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
        "    assert '{victim}' in pids, pids\n    return pids",
        "fails",
    ),
    raw(
        "raw_fork",
        "import os\ndef attack():\n"
        "    pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n    return pid",
        "no_fork",
    ),
    raw(
        "raw_setuid_root",
        "import os\ndef attack():\n    os.setuid(0)\n    return os.getuid()",
        "fails",
    ),
    raw(
        "raw_ctypes_kill_victim",
        "import ctypes\ndef attack():\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    assert libc.kill({victim}, 9) == 0, ctypes.get_errno()",
        "fails",
    ),
    raw(
        "raw_ctypes_mount",
        "import ctypes\ndef attack():\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    rc = libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)\n"
        "    assert rc == 0, ctypes.get_errno()",
        "fails",
    ),
    raw(
        "raw_write_site_packages",
        "def attack():\n    open('{site}/codeact_pwned.py', 'w').write('x')",
        "fails",
    ),
    raw(
        "raw_exec_host_binary",
        "import os\ndef attack():\n    os.execv('/usr/bin/id', ['id'])",
        "fails",
    ),
]


_LIBC = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
RAW += [
    # kernel interfaces the seccomp filter closes (Docker has its own profile; only the host
    # facts are checked there)
    raw(
        "raw_unshare_user_namespace",
        _LIBC + "def attack():\n    rc = libc.unshare(0x10000000)\n"
        "    assert rc == 0, ctypes.get_errno()\n    return open('/proc/self/uid_map').read()",
        "fails",
        docker=(),
    ),
    raw(
        "raw_io_uring_setup",
        _LIBC + "def attack():\n    params = ctypes.create_string_buffer(120)\n"
        "    fd = libc.syscall({io_uring_nr}, 8, params)\n    assert fd >= 0, ctypes.get_errno()",
        "fails",
        docker=(),
    ),
    raw(
        "raw_ptrace_sandbox_init",
        _LIBC + "def attack():\n    rc = libc.ptrace(16, 1, None, None)\n"
        "    assert rc == 0, ctypes.get_errno()",
        "fails",
        docker=(),  # the container's own init, same user: not the host
    ),
    raw(
        "raw_bpf",
        _LIBC + "def attack():\n    attr = ctypes.create_string_buffer(128)\n"
        "    fd = libc.syscall({bpf_nr}, 0, attr, 128)\n    assert fd >= 0, ctypes.get_errno()",
        "fails",
    ),
]

RAW += [
    # found by the red-team review: memory outside RLIMIT_AS, a socket family that is not
    # network-namespaced, per-user kernel objects every session shares, clone with namespaces
    raw(
        "raw_memfd_outside_rlimit_as",
        "import os\ndef attack():\n    fd = os.memfd_create('m')\n"
        "    os.write(fd, b'x' * (8 << 20))\n    return fd",
        "fails",
        docker=(),
    ),
    raw(
        "raw_vsock_socket",
        "import socket\ndef attack():\n    return socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)",
        "fails",
        docker=(),
    ),
    raw(
        "raw_alg_socket",
        "import socket\ndef attack():\n    return socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)",
        "fails",
        docker=(),
    ),
    raw(
        "raw_inotify_exhaust",
        _LIBC + "def attack():\n    fd = libc.inotify_init1(0)\n"
        "    assert fd >= 0, ctypes.get_errno()\n    return fd",
        "fails",
        docker=(),
    ),
    raw(
        "raw_clone_new_user_namespace",
        _LIBC + "import os\ndef attack():\n"
        "    rc = libc.syscall({clone_nr}, 0x10000000 | 17, 0, 0, 0, 0)\n"
        "    if rc == 0:\n        os._exit(0)\n    assert rc > 0, ctypes.get_errno()",
        "fails",
        docker=(),  # gVisor's own kernel implements user namespaces
    ),
    raw(
        "raw_bwrap_argv_shows_host_paths",
        "def attack():\n    return [open(f'/proc/{{p}}/cmdline', 'rb').read() for p in (1, 2)]",
        "no_host_paths",
    ),
]

ATTEMPTS = DATA + RAW


def as_restricted_cell(attempt: Attempt, values: dict[str, str]) -> str:
    """The cell that runs ``attempt`` in the restricted executor (unguarded ones via a pickle)."""
    code = attempt.code.format(**values)
    if not attempt.raw:
        return code
    return pickle_cell(code)


def pickle_cell(code: str) -> str:
    """A cell that writes a crafted ``.npy`` whose pickle ``exec``s ``code``, then loads it."""

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str, dict[str, str]]]:
            return (exec, (code, {"__name__": "payload"}))

    body = pickle.dumps(Payload(), protocol=2)
    header = "{'descr': '|O', 'fortran_order': False, 'shape': (), }"
    header_bytes = header.encode() + b" " * (117 - len(header)) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + len(header_bytes).to_bytes(2, "little") + header_bytes + body
    blob = base64.b64encode(npy).decode()
    return (
        "import base64\nimport numpy as np\n"
        f"open('payload.npy', 'wb').write(base64.b64decode('{blob}'))\n"
        "open('attack-result.txt', 'w').write('')\n"
        "np.load('payload.npy', allow_pickle=True)\n"
        "print(open('attack-result.txt').read())\n"
    )
