"""What ``allowed_modules`` may name: host-reaching standard-library modules are refused with
what to use instead; the rest of the standard library only through the reviewed list."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from codeact.executors.restricted._modules import STDLIB_ALLOWED

#: Standard-library modules that hand out the host, with what to use instead.
HOST_MODULES: dict[str, str] = {
    "os": "open() on relative paths reads and writes files in the working directory",
    "posix": "open() on relative paths reads and writes files in the working directory",
    "nt": "open() on relative paths reads and writes files in the working directory",
    "sys": "the sandbox's own `import sys` gives sys.stdout, sys.version and friends",
    "builtins": "the sandbox's builtins are already there",
    "importlib": "import the allowed modules directly",
    "subprocess": "give the agent a tool (a Python function) that runs the command on the host",
    "_posixsubprocess": "give the agent a tool that runs the command on the host",
    "multiprocessing": "give the agent a tool, or use the Docker backend",
    "concurrent": "give the agent a tool, or use the Docker backend",
    "threading": "cells run one at a time; give the agent a tool for parallel work",
    "_thread": "cells run one at a time; give the agent a tool for parallel work",
    "ctypes": "native code is never loaded by cells; wrap it in a tool",
    "socket": "give the agent a tool that makes the request on the host",
    "ssl": "give the agent a tool that makes the request on the host",
    "http": "give the agent a tool that makes the request on the host",
    "urllib": "give the agent a tool that makes the request on the host",
    "shutil": "open() on relative paths; upload()/download() move files in and out",
    "pathlib": "open() on relative paths; upload()/download() move files in and out",
    "tempfile": "write to a relative path in the working directory",
    "glob": "upload()/download(), or a tool that lists files",
    "io": "the sandbox's `import io` gives StringIO and BytesIO",
    "pty": "give the agent a tool",
    "signal": "deadlines are the executor's `timeout`",
    "resource": "limits are the executor's options (memory_limit_mb, cpu_limit_s...)",
    "gc": "nothing: the collector's object lists reach the host's objects",
    "inspect": "nothing: frames and code objects reach the host",
    "pickle": "json (allowed) for data; pickle runs code when loading",
    "marshal": "json (allowed) for data",
    "code": "cells are already code",
    "runpy": "cells are already code",
    "pkgutil": "import the allowed modules directly",
    "zipimport": "import the allowed modules directly",
    "mmap": "open() on relative paths",
    "fcntl": "open() on relative paths",
    "select": "give the agent a tool",
    "selectors": "give the agent a tool",
    "asyncio": "cells run synchronously; call tools directly",
    "platform": "sys.version and sys.platform (allowed) describe the interpreter",
    "webbrowser": "give the agent a tool",
    "faulthandler": "nothing: it writes to host file descriptors",
}


def check_allowed_modules(names: Iterable[str]) -> list[str]:
    """Validate ``allowed_modules``: host-reaching standard-library modules are refused with what
    to use instead; other standard-library modules are usable only through the curated list."""
    from codeact.errors import UserError

    checked = []
    for name in names:
        parts = name.split(".") if isinstance(name, str) else [""]
        if not all(p.isidentifier() for p in parts):
            raise UserError(f"allowed_modules entries must be module names, got {name!r}")
        top = name.split(".")[0]
        if name in STDLIB_ALLOWED:
            checked.append(name)
            continue
        if top in HOST_MODULES:
            raise UserError(
                f"allowed_modules: {name!r} hands the host to sandboxed code (files, processes, "
                f"network or interpreter internals) and is never allowed. Instead: "
                f"{HOST_MODULES[top]}."
            )
        if top in sys.stdlib_module_names or top in STDLIB_ALLOWED:
            raise UserError(
                f"allowed_modules: {name!r} is a standard-library module that is not on the "
                "sandbox's reviewed list (many reach the host: files, processes, network). "
                f"Reviewed modules are always importable: {', '.join(sorted(STDLIB_ALLOWED))}. "
                "For anything else, give the agent a tool (a plain Python function)."
            )
        checked.append(name)
    return checked


def third_party(names: Iterable[str]) -> list[str]:
    """The entries of ``allowed_modules`` that are third-party packages."""
    return sorted({n for n in names if n.split(".")[0] not in STDLIB_ALLOWED})
