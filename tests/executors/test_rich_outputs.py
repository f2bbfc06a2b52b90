"""Rich outputs of cells (``_rich.py``; inline, in the process worker and in the Docker kernel,
which runs the same capture): matplotlib figures as PNG (Agg), a trailing DataFrame as a table,
and the files a cell wrote; the ``codeact.cell`` event built from them; figures sent to a
multimodal model only when asked."""

from __future__ import annotations

import base64
import json
import warnings
from collections.abc import AsyncIterator

import pytest

from codeact import CodeActAgent
from codeact._messages import BinaryPart
from codeact.executors import CodeExecutor
from codeact.executors.restricted import RestrictedExecutor
from codeact.executors.restricted._ossandbox import UnsandboxedWarning
from codeact.llms import ScriptedLLM
from codeact.server._cells import MAX_IMAGE_CHARS, MAX_STREAM_CHARS, cell_value
from tests.executors.modes import MODES, make_executor

pytest.importorskip("matplotlib")
pytest.importorskip("pandas")
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(params=MODES)
async def ex(request: pytest.FixtureRequest) -> AsyncIterator[CodeExecutor]:
    """The same rich outputs inline, in the process worker and from the Docker kernel."""
    modules = ["pandas", "numpy", "matplotlib"]
    with warnings.catch_warnings():  # inline: the packages' own I/O is not sandboxed
        warnings.simplefilter("ignore", UnsandboxedWarning)
        executor = make_executor(request, request.param, allowed_modules=modules)
        async with executor:
            yield executor


@pytest.mark.anyio
async def test_figures_become_pngs_and_are_closed(ex: CodeExecutor) -> None:
    """Two figures (one shown with plt.show()) give two PNGs; the next cell has none left."""
    code = (
        "import matplotlib.pyplot as plt\n"
        "plt.plot([1, 2, 3])\nplt.show()\n"
        "plt.figure()\nplt.bar(['a', 'b'], [3, 4])\n"
    )
    first = await ex.execute(code)
    assert first.ok, first.error
    assert len(first.images) == 2
    assert all(base64.b64decode(i)[:8] == PNG for i in first.images)
    again = await ex.execute("x = 1")
    assert again.images == []
    assert "[2 image(s) produced]" in first.to_observation()


@pytest.mark.anyio
async def test_dataframe_and_series_become_tables(ex: CodeExecutor) -> None:
    """A trailing DataFrame or Series gives a text table; other values give none."""
    df = await ex.execute("import pandas as pd\npd.DataFrame({'a': [1, 2], 'b': ['x', None]})")
    assert df.tables == [
        {
            "columns": ["a", "b"],
            "index": ["0", "1"],
            "rows": [["1", "x"], ["2", "nan"]],  # pandas 3: a missing str is NaN
            "shape": [2, 2],
            "truncated": False,
        }
    ]
    assert df.value is not None and "a" in df.value  # the repr is still there for the model
    series = await ex.execute("pd.Series(range(80), name='n')")
    table = series.tables[0]
    assert (
        table["columns"],
        table["shape"],
        table["truncated"],
        len(table["rows"]),
    ) == (["n"], [80, 1], True, 50)
    plain = await ex.execute("[1, 2]")
    assert plain.tables == []


@pytest.mark.anyio
async def test_files_written_by_the_cell(ex: CodeExecutor) -> None:
    """Files the cell created or changed are listed; uploads and untouched files are not."""
    await ex.upload("in.csv", b"a\n1\n")
    r = await ex.execute(
        "import pandas as pd\ndf = pd.read_csv('in.csv')\nopen('out.csv', 'w').write(df.to_csv())\n"
        "open('notes.txt', 'w').write('hi')\n"
    )
    assert r.ok, r.error
    assert r.files == ["notes.txt", "out.csv"]
    untouched = await ex.execute("open('notes.txt').read()")
    assert untouched.files == []


def test_cell_value_shape_and_caps() -> None:
    """The event value: camelCase fields, capped streams and images, the error, the answer."""
    execution = {
        "stdout": "x" * (MAX_STREAM_CHARS + 10),
        "stderr": "warn",
        "value": None,
        "error": {"type": "ValueError", "message": "bad", "traceback": "Traceback..."},
        "duration_s": 0.123456,
        "timed_out": False,
        "images": ["A" * (MAX_IMAGE_CHARS // 2), "B" * (MAX_IMAGE_CHARS // 2), "C"],
        "tables": [{"columns": []}, "junk"],
        "files": ["out.csv", 3],
        "is_final_answer": True,
        "final_answer": {"city": "Paris"},
    }
    value = cell_value("call-1", execution)
    assert value["toolCallId"] == "call-1"
    assert value["durationS"] == 0.1235
    assert value["ok"] is False
    assert value["stdout"].endswith("[output cut for display]")
    assert len(value["images"]) == 2 and value["images"][0]["mimeType"] == "image/png"
    assert value["tables"] == [{"columns": []}]
    assert value["files"] == ["out.csv"]
    assert value["error"] == {"type": "ValueError", "message": "bad", "traceback": "Traceback..."}
    assert json.loads(value["finalAnswer"]) == {"city": "Paris"}
    assert "value" not in value


@pytest.mark.anyio
@pytest.mark.parametrize("images_to_llm", [False, True])
async def test_figures_reach_a_multimodal_model_only_when_asked(images_to_llm: bool) -> None:
    """With ``images_to_llm=True`` the cell's PNG goes to the model as an image part after
    the observation; by default the model sees only the text placeholder."""
    llm = ScriptedLLM(
        ["<execute>\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\n</execute>", "done"],
        function_calling=False,
    )
    agent = CodeActAgent(
        llm=llm,
        images_to_llm=images_to_llm,
        executor=lambda: RestrictedExecutor(
            isolation="process", allowed_modules=["matplotlib", "numpy"], timeout=60
        ),
    )
    await agent.run("draw")
    observation = llm.requests[1].messages[-1]
    assert "[1 image(s) produced]" in observation.text
    images = [p for p in observation.content if isinstance(p, BinaryPart)]
    if images_to_llm:
        assert [p.mime_type for p in images] == ["image/png"]
        assert images[0].as_bytes()[:8] == PNG
    else:
        assert isinstance(observation.content, str)
