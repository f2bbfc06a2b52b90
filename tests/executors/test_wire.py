"""The kernel kit (``codeact.executors.wire``) and the shipped kernel cannot drift apart: the
container kernel (``codeact/executors/kernel/kernel.py``, stdlib only, never importing the
package) is read as source and its framing compared with the protocol module's."""

from __future__ import annotations

import ast
import struct
from pathlib import Path

import pytest

import codeact.executors.wire as wire
from codeact.errors import UserError
from codeact.executors.kernel import KERNEL_SOURCE
from codeact.executors.wire import frames

KERNEL_TREE = ast.parse(KERNEL_SOURCE)


def _constant(name: str) -> ast.expr:
    for node in KERNEL_TREE.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.value
    raise AssertionError(f"kernel.py defines no {name}")


def _dict_literals() -> list[ast.Dict]:
    return [n for n in ast.walk(KERNEL_TREE) if isinstance(n, ast.Dict)]


def sent_ops() -> dict[str, set[str]]:
    """op -> the literal keys of each frame the kernel builds as ``{"op": "...", ...}``
    (frames with ``**`` unpacking give only their literal keys)."""
    found: dict[str, set[str]] = {}
    for node in _dict_literals():
        keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
        if "op" not in keys:
            continue
        value = node.values[keys.index("op")]
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.setdefault(value.value, set()).update(k for k in keys if isinstance(k, str))
    return found


def handled_ops() -> set[str]:
    """The ops the kernel compares an incoming frame's op with (``op == "..."`` or
    ``reply.get("op") == "..."``)."""
    ops: set[str] = set()
    for node in ast.walk(KERNEL_TREE):
        if not (isinstance(node, ast.Compare) and len(node.comparators) == 1):
            continue
        left, right = ast.unparse(node.left), node.comparators[0]
        if ("op" in left) and isinstance(right, ast.Constant) and isinstance(right.value, str):
            ops.add(right.value)
    return ops


def test_the_kernel_frames_like_the_protocol_module() -> None:
    header = _constant("HEADER")
    assert isinstance(header, ast.Call) and ast.unparse(header.func) == "struct.Struct"
    fmt = header.args[0]
    assert isinstance(fmt, ast.Constant)
    assert struct.Struct(fmt.value).format == frames.HEADER.format
    max_frame = _constant("MAX_FRAME")  # e.g. 16 * 1024 * 1024: constants only
    assert all(isinstance(n, ast.Constant | ast.BinOp | ast.operator) for n in ast.walk(max_frame))
    assert eval(compile(ast.Expression(max_frame), "kernel.py", "eval"), {}) == frames.MAX_FRAME


def test_every_frame_the_kernel_sends_is_one_the_host_accepts() -> None:
    sent = sent_ops()
    assert {"ready", "stream", "result", "reset_done", "file", "file_error"} <= set(sent)
    for op, keys in sent.items():
        assert op in frames.WORKER_OPS, f"kernel.py sends {op!r}, unknown to frames.WORKER_OPS"
        if op != "result":  # the result frame is built from ``**result`` (checked below)
            missing = set(frames.WORKER_OPS[op]) - keys
            assert not missing, f"kernel.py's {op!r} frame lacks {sorted(missing)}"


def test_the_kernel_handles_every_op_the_host_sends() -> None:
    handled = handled_ops()
    assert handled == set(frames.HOST_OPS) - {"init"}, (
        "kernel.py and frames.HOST_OPS disagree: "
        f"{sorted(handled ^ (set(frames.HOST_OPS) - {'init'}))}"
    )


def test_a_result_frame_of_the_kernel_decodes_on_the_host() -> None:
    # the kernel's own slim result (built field by field) passes the host's validation
    for node in _dict_literals():
        if None in node.keys:  # ``{"op": "result", **result, ...}``: its fields come from run()
            continue
        keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
        if "op" in keys and ast.literal_eval(node.values[keys.index("op")]) == "result":
            names = set(keys)
            assert set(frames.WORKER_OPS["result"]) <= names, sorted(names)


def test_the_drift_checks_can_fail(tmp_path: Path) -> None:
    # a kernel with another header width or an unknown op is caught by the same readers
    global KERNEL_TREE
    saved = KERNEL_TREE
    try:
        KERNEL_TREE = ast.parse(
            KERNEL_SOURCE.replace('struct.Struct(">I")', 'struct.Struct(">H")').replace(
                '{"op": "reset_done"}', '{"op": "reset_ok"}'
            )
        )
        with pytest.raises(AssertionError):
            test_the_kernel_frames_like_the_protocol_module()
        with pytest.raises(AssertionError):
            test_every_frame_the_kernel_sends_is_one_the_host_accepts()
    finally:
        KERNEL_TREE = saved


def test_the_kit_exports_resolve() -> None:
    for name in wire.__all__:
        assert getattr(wire, name) is not None, name
    with pytest.raises(AttributeError):
        wire.KernelNope  # noqa: B018


@pytest.mark.parametrize("path", ["", "/etc/passwd", "../x", "a/../../x", "a\x00b"])
def test_paths_leaving_the_working_area_are_refused(path: str) -> None:
    with pytest.raises(UserError, match="relative"):
        wire.check_relative(path)
    with pytest.raises(UserError):
        wire.tar_file(path, b"x")


def test_one_file_round_trips_through_an_archive() -> None:
    assert wire.untar_file(wire.tar_file("a/b.txt", b"data")) == b"data"


def test_kernel_session_is_a_deprecated_name_of_restartable_kernel() -> None:
    import codeact.executors.wire as wire
    from codeact.executors.wire.session import RestartableKernel

    with pytest.warns(DeprecationWarning, match="use RestartableKernel"):
        old = wire.KernelSession
    assert old is RestartableKernel is wire.RestartableKernel


def _undefined_names(source: str) -> str:
    """ruff's F821 report on ``source`` (empty when every name it uses is defined)."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F821",
         "--output-format", "concise", "--stdin-filename", "kernel_joined.py", "-"],
        input=source, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return run.stdout if run.returncode else ""


def test_the_kernels_parts_join_into_a_source_with_no_undefined_name() -> None:
    from codeact.executors import kernel

    assert _undefined_names(KERNEL_SOURCE) == ""
    without_files = KERNEL_SOURCE.replace(
        (Path(kernel.__file__).parent / "_files.py").read_text(), ""
    )
    assert "archive" in _undefined_names(without_files)  # the check sees a missing part
    assert "import codeact" not in KERNEL_SOURCE and "from codeact" not in KERNEL_SOURCE
