"""Modules stay small (issue 27: "modules stay under ~400 lines"): a module that grows past the
bound is split along a real seam, not allowed to drift."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "codeact"
#: "~400": a little slack so a fix of a few lines never forces a split in a hurry.
MAX_LINES = 420


def oversized(root: Path, limit: int) -> dict[str, int]:
    """Modules under ``root`` with more than ``limit`` lines."""
    sizes = {str(p.relative_to(root)): len(p.read_text().splitlines()) for p in root.rglob("*.py")}
    return {name: n for name, n in sizes.items() if n > limit}


def test_no_module_is_over_the_bound() -> None:
    assert not oversized(ROOT, MAX_LINES), "split these along a real seam"


def test_the_check_finds_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "short.py").write_text("x = 1\n" * 10)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * 11)
    assert oversized(tmp_path, 10) == {"pkg/long.py": 11}
