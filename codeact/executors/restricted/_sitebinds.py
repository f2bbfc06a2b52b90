"""Which installed files a sandboxed worker sees: codeact, the worker's own dependencies and
the distributions of the allowed modules, with their requirements (read from
``importlib.metadata``), each bound read-only into the sandbox's site directory."""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import importlib.util
import re
from pathlib import Path

#: The installed ``codeact`` package directory (what the worker imports codeact from).
PACKAGE_DIR = Path(__file__).resolve().parents[2]

#: What the worker itself imports (besides codeact): these distributions and their requirements.
WORKER_DISTRIBUTIONS = ("RestrictedPython", "pydantic", "anyio")


def _requirement_names(dist: metadata.Distribution) -> list[str]:
    names = []
    for req in dist.requires or []:
        if re.search(r"\bextra\s*==", req):  # requirements of optional extras only
            continue
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if match:
            names.append(match.group(1))
    return names


def _distribution_closure(names: list[str]) -> list[metadata.Distribution]:
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen[key] = dist
        todo.extend(_requirement_names(dist))
    return list(seen.values())


def _top_level_entries(dist: metadata.Distribution) -> list[Path]:
    """The files and folders a distribution put at the top of its site directory."""
    entries: dict[str, Path] = {}
    for file in dist.files or []:
        parts = Path(str(file)).parts
        if not parts or parts[0] in ("..", "__pycache__") or parts[0].endswith(".pth"):
            continue
        full = Path(str(dist.locate_file(parts[0])))
        if full.exists():
            entries[parts[0]] = full
    return list(entries.values())


def _distributions_for_modules(modules: tuple[str, ...]) -> list[str]:
    mapping = metadata.packages_distributions()
    names: list[str] = []
    for module in modules:
        names.extend(mapping.get(module.split(".")[0], []))
    return names


@functools.lru_cache(maxsize=32)
def site_binds(modules: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    binds: dict[str, str] = {}
    package = PACKAGE_DIR
    binds["codeact"] = str(package)
    wanted = [*WORKER_DISTRIBUTIONS, *_distributions_for_modules(modules)]
    for dist in _distribution_closure(wanted):
        if (dist.metadata["Name"] or "").lower() == "codeact":
            continue
        for entry in _top_level_entries(dist):
            binds.setdefault(entry.name, str(entry.resolve()))
    for module in modules:  # modules installed without a RECORD (or found on PYTHONPATH)
        top = module.split(".")[0]
        if any(name == top or name == f"{top}.py" for name in binds):
            continue
        spec = importlib.util.find_spec(top)
        if spec is not None and spec.origin not in (None, "built-in", "frozen"):
            origin = Path(spec.origin)
            root = origin.parent if origin.name == "__init__.py" else origin
            if "site-packages" in root.parts or "dist-packages" in root.parts:
                binds[root.name] = str(root.resolve())
    return tuple(sorted(binds.items()))
