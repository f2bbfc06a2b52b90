"""Why a Docker sandbox's kernel died, from the engine's ``State`` (no engine needed): the
full CI on a loaded host saw gVisor's kernel killed with exit code 137 and no OOM flag."""

from __future__ import annotations

import pytest

from codeact.executors.docker._container import exit_reason


@pytest.mark.parametrize(
    ("state", "kind", "said"),
    [
        ({"OOMKilled": True, "ExitCode": 137}, "MemoryError", "ran out of memory (limit 256m)"),
        (
            {"OOMKilled": False, "ExitCode": 137, "Status": "exited"},
            "SandboxCrashed",
            "most likely it ran out of memory (limit 256m), or it was killed from outside",
        ),
        (
            {"OOMKilled": False, "ExitCode": 1, "Status": "exited"},
            "SandboxCrashed",
            "exited (status exited, exit code 1)",
        ),
    ],
)
def test_the_engines_state_names_the_cause(state: dict[str, object], kind: str, said: str) -> None:
    got_kind, message = exit_reason(state, "256m")
    assert got_kind == kind and said in message
    if state["ExitCode"] == 1:
        assert "memory" not in message
