"""``codeact run`` on a real (pseudo-)terminal, read back through a terminal emulator: the
model's text shows while it streams (dimmed) and gives way to the code of the step; code and
output wrap at the terminal's width, at 80 columns and narrower, and are never cropped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.terminal import run_in_terminal

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="uses a pseudo-terminal")

PROSE = "Let me load the file and sum the units per city, then pick the city with the most units."
LONG = (
    "print(f'The city with the most units sold is {city_with_most_units} with "
    "{units_sold_by_that_city} units sold in total across all products')"
)
OUTPUT = (
    "The city with the most units sold is Paris with 33 units sold in total across all products"
)


def _replies(tmp: Path, chunk_delay: float) -> Path:
    code = f"city_with_most_units = 'Paris'\nunits_sold_by_that_city = 33\n{LONG}\n"
    first = {"text": f"{PROSE}\n<execute>\n{code}</execute>", "chunk_delay": chunk_delay}
    path = tmp / "replies.json"
    path.write_text(json.dumps([first, "Paris sold the most: 33 units."]))
    return path


@pytest.mark.parametrize("cols", [80, 44])
def test_code_and_output_wrap_and_are_never_cropped(tmp_path: Path, cols: int) -> None:
    replies = _replies(tmp_path, 0.0)
    s = run_in_terminal(["run", "Which city?", "--model", f"scripted:{replies}"], cols=cols)
    assert s.returncode == 0, s.text
    assert all(len(line.rstrip()) <= cols for line in s.screen)
    flat = "".join(line.rstrip() for line in s.screen).replace(" ", "")
    assert LONG.replace(" ", "") in flat, s.text  # every character of the code, in order
    assert OUTPUT.replace(" ", "") in flat, s.text
    assert "Paris sold the most: 33 units." in s.text


def test_the_models_text_streams_dimmed_then_gives_way_to_the_code(tmp_path: Path) -> None:
    replies = _replies(tmp_path, 0.03)
    s = run_in_terminal(
        ["run", "Which city?", "--model", f"scripted:{replies}"],
        watch=lambda rows: (
            any("sum the units per city" in row for row in rows)
            and not any("Step 1" in row for row in rows)
        ),
    )
    assert s.returncode == 0, s.text
    assert s.seen, "the model's text never showed while it streamed"
    assert any("Thinking..." in row for row in s.seen[-1]), "no spinner beside the text"
    assert b"\x1b[2m" + PROSE[:10].encode() in s.raw, "the streamed text is not dimmed"
    assert "sum the units per city" not in s.text, "the streamed text stayed on screen"
    assert "Step 1" in s.text and "city_with_most_units = 'Paris'" in s.text
