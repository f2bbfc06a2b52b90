"""`codeact run --json` says per answer whether its value came from a cell, and a run stopped
at its step or time limit still reports the values the code printed (scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import codeact

Q = "What are 6 * 7 and 2 ** 10? Answer as @product[value] @power[value]."
CODE = "<execute>\nprint('product:', 6 * 7)\nprint('power =', 2 ** 10)\n</execute>"


def test_json_says_per_answer_whether_the_value_was_computed(tmp_path: Path) -> None:
    r = codeact(
        "run", Q, "--json", "--no-require-execution", "--max-steps", "3",
        replies=[CODE, "@product[42] @power[1000]", "@product[42] @power[1000]"], tmp=tmp_path,
    )  # fmt: skip
    out = json.loads(r.stdout)
    assert r.returncode == 0, r.stderr
    # one send-back for the untraced 1000, then the printed value replaces it
    assert out["answers"] == {
        "product": {"value": "42", "computed": True},
        "power": {"value": "1024", "computed": True},
    }
    assert out["computed"] is True


def test_limits_report_the_best_answer_made_of_printed_values(tmp_path: Path) -> None:
    failing = "<execute>\nprint(undefined)\n</execute>"
    r = codeact(
        "run", Q, "--json", "--max-steps", "2", replies=[CODE, failing], tmp=tmp_path
    )  # fmt: skip
    out = json.loads(r.stdout)
    assert r.returncode == 1 and out["ok"] is False and out["at_limit"] == "steps"
    assert out["answer"] == "@product[42] @power[1024]"
    assert out["answers"]["power"] == {"value": "1024", "computed": True}
    slow = [CODE, {"text": "@product[42]", "delay": 120}]
    r = codeact("run", Q, "--timeout", "15", replies=slow, tmp=tmp_path)  # type: ignore[list-item]
    assert r.returncode == 3, r.stderr
    assert r.stdout.strip() == "@product[42] @power[1024]"
    assert "stopped at its time limit" in " ".join(r.stderr.split())
