"""``codeact batch`` run as a user runs it (a subprocess), with a scripted model: results,
resume, the folder shorthand, and interruption by SIGINT and SIGKILL mid-batch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codeact.batch import read_results
from tests.batch.procs import descendants, wait_gone

ROOT = Path(__file__).resolve().parents[2]
SQUARE = "<execute>\nimport time\ntime.sleep({sleep})\nn = int(open('in.txt').read())\nfinal_answer(n * n)\n</execute>"


def make_tasks(
    tmp: Path, count: int, *, sleep: float = 0.0, wrong: int | None = None
) -> tuple[Path, Path]:
    """A tasks file of ``count`` squares to compute (one file each) and the scripted model."""
    (tmp / "inputs").mkdir(exist_ok=True)
    lines = []
    for i in range(count):
        (tmp / "inputs" / f"{i}.txt").write_text(str(i))
        expected = i * i + (1 if i == wrong else 0)
        lines.append(
            json.dumps(
                {
                    "id": f"t{i}",
                    "prompt": "Square the number in in.txt",
                    "files": {"in.txt": f"inputs/{i}.txt"},
                    "expected": expected,
                }
            )
        )
    (tmp / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    (tmp / "replies.json").write_text(json.dumps([SQUARE.format(sleep=sleep)]))
    return tmp / "tasks.jsonl", tmp / "replies.json"


def argv(tasks: Path, out: Path, replies: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "codeact.cli",
        "batch",
        str(tasks),
        "--out",
        str(out),
        "--model",
        f"scripted:{replies}",
        *extra,
    ]


def env() -> dict[str, str]:
    drop = ("CODEACT_MODEL", "OPENAI_BASE_URL")
    out = {k: v for k, v in os.environ.items() if k not in drop}
    out["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return out


def run(args: list[str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, capture_output=True, text=True, timeout=timeout, env=env(), cwd=ROOT
    )


def results(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_runs_scores_and_resumes(tmp_path: Path) -> None:
    tasks, replies = make_tasks(tmp_path, 5, wrong=3)
    out = tmp_path / "out" / "results.jsonl"
    first = run(argv(tasks, out, replies, "--score", "exact", "-j", "3"))
    assert first.returncode == 0, first.stderr
    got = {r["id"]: r for r in results(out)}
    assert sorted(got) == [f"t{i}" for i in range(5)]
    assert all(got[f"t{i}"]["value"] == i * i for i in range(5))
    assert got["t3"]["score"] == 0.0 and got["t0"]["score"] == 1.0
    assert "5 task(s): 5 ok, 0 failed, 0 timed out" in first.stderr
    assert "accuracy: 80.0% over 5 scored task(s)" in first.stderr
    again = run(argv(tasks, out, replies, "--score", "exact"))
    assert again.returncode == 0, again.stderr
    assert "0 task(s) run" in again.stderr and "5 from an earlier run" in again.stderr
    assert "accuracy: 80.0%" in again.stderr
    assert len(results(out)) == 5, "nothing was run twice"


def test_failed_tasks_exit_1_and_retry_failed_reruns_them(tmp_path: Path) -> None:
    tasks, _ = make_tasks(tmp_path, 2)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(["<execute>\nprint(1)\n</execute>"]))  # runs out of replies
    out = tmp_path / "r.jsonl"
    r = run(argv(tasks, out, bad))
    assert r.returncode == 1, r.stderr
    assert "ScriptedLLM ran out of replies" in r.stderr and "2 failed" in r.stderr
    assert run(argv(tasks, out, bad)).returncode == 1  # nothing run, but failures remain
    good = tmp_path / "good.json"
    good.write_text(json.dumps([SQUARE.format(sleep=0)]))
    r = run(argv(tasks, out, good, "--retry-failed"))
    assert r.returncode == 0, r.stderr
    assert "2 task(s): 2 ok" in r.stderr


def test_a_folder_with_a_prompt(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("a.txt", "b.txt"):
        (folder / name).write_text(name.upper())
    replies = tmp_path / "r.json"
    replies.write_text(json.dumps(["<execute>\nprint(1)\n</execute>", "It is a text file."]))
    out = tmp_path / "out.jsonl"
    r = run(argv(folder, out, replies, "--prompt", "What is in the file?"))
    assert r.returncode == 0, r.stderr
    assert {x["id"] for x in results(out)} == {"a.txt", "b.txt"}
    assert all(x["answer"] == "It is a text file." for x in results(out))


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    tasks, replies = make_tasks(tmp_path, 1)
    out = tmp_path / "o.jsonl"
    missing = run(argv(tmp_path / "nope.jsonl", out, replies))
    assert missing.returncode == 2 and "No tasks file" in missing.stderr
    zero = run(argv(tasks, out, replies, "--concurrency", "0"))
    assert zero.returncode == 2 and "--concurrency" in zero.stderr
    bad_model = run(argv(tasks, out, tmp_path / "none.json"))
    assert bad_model.returncode == 2 and "Cannot read scripted replies" in bad_model.stderr
    bad_score = run(argv(tasks, out, replies, "--score", "nonsense"))
    assert bad_score.returncode == 2 and "--score must be" in bad_score.stderr


def _interrupt_mid_batch(tmp_path: Path, sig: int) -> tuple[Path, Path, Path, int]:
    """Start a batch of 10 slow tasks, wait for 2 results, send ``sig``; check the sandboxes
    are gone; returns the files and how many results the first run kept."""
    tasks, replies = make_tasks(tmp_path, 10, sleep=1.5)
    out = tmp_path / "results.jsonl"
    proc = subprocess.Popen(
        argv(tasks, out, replies, "-j", "2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if out.exists() and len(out.read_text().splitlines()) >= 2:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the batch produced no results")
        time.sleep(0.5)  # the next two tasks are in their cells
        sandboxes = descendants(proc.pid)
        assert sandboxes, "the sandbox workers should be running"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    if sig == signal.SIGINT:
        assert proc.returncode == 130, err
        assert "Interrupted" in err and "run again to resume" in err
    else:
        assert proc.returncode == -signal.SIGKILL
    assert not wait_gone(sandboxes), "a sandbox process outlived the batch"
    kept = len(results(out)) if sig == signal.SIGINT else len(out.read_text().splitlines())
    assert 2 <= kept < 10
    return tasks, out, replies, kept


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_interrupted_batch_resumes_losing_at_most_the_running_tasks(
    tmp_path: Path, sig: int
) -> None:
    tasks, out, replies, kept = _interrupt_mid_batch(tmp_path, sig)
    before = read_results(out)  # a SIGKILL may have cut the last line: it is dropped
    assert len(before) in (kept, kept - 1)
    r = run(argv(tasks, out, replies, "-j", "4"))
    assert r.returncode == 0, r.stderr
    final = results(out)
    ids = [x["id"] for x in final]
    assert sorted(set(ids)) == sorted(f"t{i}" for i in range(10))
    assert len(ids) == 10, "a task finished before the interruption was run again"
    assert f"{10 - len(before)} task(s) run" in r.stderr
    assert all(x["value"] == int(str(x["id"])[1:]) ** 2 for x in final)


def test_a_model_that_cannot_load_stops_before_any_task(tmp_path: Path) -> None:
    tasks, _ = make_tasks(tmp_path, 2)
    out = tmp_path / "o.jsonl"
    args = [
        sys.executable,
        "-m",
        "codeact.cli",
        "batch",
        str(tasks),
        "--out",
        str(out),
        "--model",
        "local",
    ]
    r = subprocess.run(
        args,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(env(), CODEACT_MODEL_PATH=str(tmp_path / "missing.gguf")),
    )
    assert r.returncode == 2, r.stderr
    assert "missing.gguf does not exist" in r.stderr
    assert not out.exists() or out.read_text() == ""
