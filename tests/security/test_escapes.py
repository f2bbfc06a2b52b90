"""The security corpus, run against both isolation modes of the restricted executor."""

from __future__ import annotations

import json
import os
import pathlib
import time

import pytest

from codeact.executors import RestrictedExecutor
from tests.security.corpus import CASES, Case
from tests.security.corpus_pyparity import CASES as PARITY_CASES
from tests.security.corpus_redteam import CASES as REDTEAM_CASES

pytestmark = pytest.mark.anyio

SECRET = "host-secret-7f3a9"
os.environ["CODEACT_TEST_SECRET"] = SECRET
_REAL_LOADS = json.loads


def lookup(key: str) -> dict[str, object]:
    """Look a key up."""
    return {"key": key, "n": len(key)}


def where() -> pathlib.Path:
    """Return a host path object."""
    return pathlib.Path("/etc/hostname")


def leak_fn() -> object:
    """Return a host function object."""
    return os.system


PARAMS = [
    pytest.param(case, iso, id=f"{iso}-{case.id}")
    for case in CASES + PARITY_CASES + REDTEAM_CASES
    for iso in ("inline", "process")
    if case.only in (None, iso)
]


@pytest.mark.parametrize(("case", "isolation"), PARAMS)
async def test_attempt(case: Case, isolation: str, tmp_path: pathlib.Path) -> None:
    before = set(tmp_path.parent.iterdir())
    async with RestrictedExecutor(
        tools=[lookup, where, leak_fn],
        isolation=isolation,  # type: ignore[arg-type]
        timeout=case.timeout,
        memory_limit_mb=768,
        max_output_bytes=100_000,
    ) as ex:
        t0 = time.monotonic()
        r = await ex.execute(case.code)
        took = time.monotonic() - t0
        text = r.to_observation(100_000) + (r.value or "")
        assert SECRET not in text
        assert "<module 'os'" not in text and "posix" not in text
        if case.expect == "error":
            assert r.error is not None, f"expected an error, got {r.to_observation()}"
            assert case.match in f"{r.error.type}: {r.error.message}"
        elif case.expect == "timeout":
            assert r.timed_out, r.to_observation()
            assert took < case.timeout + 4
            if r.restarted:
                assert isolation == "process"
            after = await ex.execute("1 + 1")
            assert after.value == "2", "the session must stay usable"
        else:
            assert r.error is None and not r.timed_out, r.to_observation()
            assert r.value == case.value
        if case.id == "print_flood":
            assert r.truncated and len(r.stdout) <= 100_000
    assert json.loads is _REAL_LOADS
    assert os.environ["CODEACT_TEST_SECRET"] == SECRET
    assert set(tmp_path.parent.iterdir()) == before  # nothing written outside the sandbox


def test_the_corpus_is_big_enough() -> None:
    attacks = [c for c in CASES if not c.id.startswith("ok_")]
    assert len(attacks) >= 60
    assert len(CASES) - len(attacks) >= 10
