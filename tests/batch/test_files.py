"""Tasks files, folders and the results file that resume reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codeact.batch import ResultsWriter, Task, TaskResult, load_tasks, read_results
from codeact.errors import UserError


def write_lines(path: Path, *objs: object) -> Path:
    path.write_text("\n".join(o if isinstance(o, str) else json.dumps(o) for o in objs) + "\n")
    return path


def test_tasks_file_fields_files_and_defaults(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.csv").write_text("a,b\n1,2\n")
    path = write_lines(
        tmp_path / "t.jsonl",
        {"id": "q1", "prompt": "Sum?", "files": ["d/x.csv"], "expected": 3, "level": "easy"},
        "",
        {"question": "Second?", "answer": "yes", "files": {"in/data.csv": "d/x.csv"}},
    )
    first, second = load_tasks(path)
    assert first == Task(
        id="q1",
        prompt="Sum?",
        files={"x.csv": b"a,b\n1,2\n"},
        expected=3,
        metadata={"level": "easy"},
    )
    assert second.id == "3" and second.prompt == "Second?" and second.expected == "yes"
    assert second.files == {"in/data.csv": b"a,b\n1,2\n"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"id": "a"}', "needs a 'prompt'"),
        ('{"prompt": "x", "files": ["missing.csv"]}', "cannot read file"),
        ('{"prompt": "x", "files": 3}', "'files' must be"),
        ('{"prompt": "x", "files": {"../up": "t.jsonl"}}', "relative path"),
    ],
)
def test_bad_tasks_file_lines_say_where(tmp_path: Path, line: str, message: str) -> None:
    path = write_lines(tmp_path / "t.jsonl", {"prompt": "fine"}, line)
    with pytest.raises(UserError, match=message) as info:
        load_tasks(path)
    assert "t.jsonl:2" in str(info.value)


def test_duplicate_ids_and_missing_paths(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", {"id": 1, "prompt": "a"}, {"id": "1", "prompt": "b"})
    with pytest.raises(UserError, match="unique"):
        load_tasks(path)
    with pytest.raises(UserError, match="No tasks file"):
        load_tasks(tmp_path / "nope.jsonl")


def test_a_folder_is_one_task_per_file(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("B")
    (tmp_path / "a.txt").write_text("A")
    (tmp_path / ".hidden").write_text("no")
    tasks = load_tasks(tmp_path, prompt="What is in it?")
    assert [(t.id, t.files) for t in tasks] == [
        ("a.txt", {"a.txt": b"A"}),
        ("b.txt", {"b.txt": b"B"}),
    ]
    assert {t.prompt for t in tasks} == {"What is in it?"}
    with pytest.raises(UserError, match="--prompt"):
        load_tasks(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match="no files"):
        load_tasks(empty, prompt="x")


def test_results_file_appends_keeps_the_last_and_drops_a_cut_line(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "results.jsonl"
    with ResultsWriter(out) as w:
        w.write(TaskResult(id="a", status="failed"))
        w.write(TaskResult(id="b", status="ok", answer="B"))
    with out.open("a") as f:
        f.write('{"id": "c", "status": "ok", "answ')  # a crash in the middle of a line
    assert set(read_results(out)) == {"a", "b"}
    with ResultsWriter(out) as w:  # reopening drops the cut line
        w.write(TaskResult(id="a", status="ok", answer="A"))
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line) for line in lines)
    got = read_results(out)
    assert got["a"].ok and got["a"].answer == "A" and got["b"].answer == "B"
    assert read_results(tmp_path / "absent.jsonl") == {}
    with pytest.raises(UserError, match="not open"):
        ResultsWriter(out).write(TaskResult(id="x", status="ok"))
