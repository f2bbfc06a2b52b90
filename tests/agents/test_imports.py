"""A cell that imports a library the sandbox lacks is re-run without it (``_imports``):
scipy's correlations defined in the cell, drawing left out, anything else a hint."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pandas as pd
import pytest

from codeact import CodeActAgent, RestrictedExecutor
from codeact._execution import CellError, ExecutionResult
from codeact.agents._imports import _T_DIST, import_fix, import_hint, missing_module
from codeact.events import Event, ToolCallResult
from codeact.llms import ScriptedLLM
from tests.helpers import collect

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

CSV = b"a,b\n1,2\n2,1\n3,4\n4,3\n5.5,6\n,7\n9,8\n"
QUESTION = "What is the Pearson correlation coefficient between a and b? Format: @r[value]"
REFUSED = "import of 'scipy.stats' is not allowed in the sandbox. Allowed modules: pandas"


def failed(message: str = REFUSED, kind: str = "ImportError") -> ExecutionResult:
    return ExecutionResult(error=CellError(type=kind, message=message))


async def run_cells(replies: list[Any]) -> list[ToolCallResult]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = RestrictedExecutor(allowed_modules=["pandas", "numpy"])
    agent = CodeActAgent(llm=ScriptedLLM(replies, function_calling=False), executor=ex)
    async with ex:
        await ex.upload("t.csv", CSV)
        events: list[Event] = await collect(agent.run(QUESTION))
    return [e for e in events if isinstance(e, ToolCallResult) and e.tool_name == "execute"]


def t_two_sided_by_integration(t: float, dof: int) -> float:
    """The reference: 1 - 2 * the integral of Student's t density from 0 to |t| (Simpson's
    rule on a finite interval, where the density is smooth)."""
    const = math.gamma((dof + 1) / 2) / (math.sqrt(dof * math.pi) * math.gamma(dof / 2))

    def density(x: float) -> float:
        return const * (1 + x * x / dof) ** (-(dof + 1) / 2)

    n, h = 20000, abs(t) / 20000
    inner = sum((4 if i % 2 else 2) * density(i * h) for i in range(1, n))
    return 1 - 2 * (density(0) + inner + density(abs(t))) * h / 3


async def test_scipy_pearsonr_is_defined_in_the_re_run_and_its_values_are_right() -> None:
    cell = (
        "import pandas as pd\nfrom scipy.stats import pearsonr\ndf = pd.read_csv('t.csv')\n"
        "d = df.dropna()\nr, p = pearsonr(d['a'], d['b'])\nprint(round(r, 6), round(p, 6))"
    )
    (result,) = await run_cells([f"<execute>\n{cell}\n</execute>", "@r[0.9]"])
    content = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert "scipy is not available in this sandbox. I re-ran your cell with pearsonr" in content
    frame = pd.read_csv(__import__("io").BytesIO(CSV)).dropna()
    r = frame["a"].corr(frame["b"])
    p = t_two_sided_by_integration(r * math.sqrt((len(frame) - 2) / (1 - r * r)), len(frame) - 2)
    assert content.rstrip().endswith(f"{round(r, 6)} {round(p, 6)}"), content
    assert "from scipy" not in result.tool_kwargs["code"]  # the code that ran is recorded


@pytest.mark.parametrize(("t", "dof"), [(2.776, 3), (0.3, 1), (1.96, 200), (8.5, 12), (0.0, 5)])
def test_the_p_value_matches_students_t_distribution(t: float, dof: int) -> None:
    space: dict[str, Any] = {}
    exec(_T_DIST, space)
    assert space["t_two_sided"](t * t, dof) == pytest.approx(
        t_two_sided_by_integration(t, dof), abs=2e-6
    )


@pytest.mark.parametrize(
    ("code", "calls"),
    [
        ("import scipy.stats as st\nprint(st.pearsonr(x, y))", ["pearsonr(x, y)"]),
        ("from scipy import stats\nr = stats.spearmanr(x, y)[0]", ["spearmanr(x, y)"]),
        ("import scipy\nprint(scipy.stats.pearsonr(x, y))", ["pearsonr(x, y)"]),
        ("from scipy.stats import pearsonr as pr\nprint(pr(x, y))", ["pearsonr(x, y)"]),
    ],
)
def test_every_way_of_importing_the_correlation_is_rewritten(code: str, calls: list[str]) -> None:
    fix = import_fix(failed(), code)
    assert fix is not None
    assert "scipy" not in fix.code.replace("scipy is not in the sandbox", "")
    assert all(call in fix.code for call in calls)
    compile(fix.code, "<cell>", "exec")


def test_other_modules_of_one_import_statement_are_kept() -> None:
    fix = import_fix(failed(), "import numpy as np, scipy.stats as st\nprint(st.pearsonr(x, y))")
    assert fix is not None
    assert fix.code.startswith("import numpy as np\ndef t_two_sided(")


def test_drawing_with_a_missing_library_is_left_out_with_what_uses_it() -> None:
    code = (
        "import pandas as pd\nimport seaborn as sns\ndf = pd.read_csv('t.csv')\n"
        "ax = sns.histplot(df['a'])\nax.set_title('a')\nprint(df['a'].mean())"
    )
    fix = import_fix(failed("import of 'seaborn' is not allowed in the sandbox."), code)
    assert fix is not None
    assert (
        fix.code.split()
        == "import pandas as pd df = pd.read_csv('t.csv') print(df['a'].mean())".split()
    )
    assert "without import seaborn as sns; ax = sns.histplot(df['a']); ax.set_title('a')" in (
        fix.note()
    )


def test_an_unused_import_is_left_out() -> None:
    fix = import_fix(failed(), "from scipy import stats\nprint(1 + 1)")
    assert fix is not None and fix.code.strip() == "print(1 + 1)"


@pytest.mark.parametrize(
    "code",
    [
        "from scipy import stats\nprint(stats.ttest_ind(a, b))",  # nothing stands in for it
        "import seaborn as sns\nfor c in cols:\n    sns.histplot(c)",  # drawing inside a block
        "from scipy.stats import *\nprint(pearsonr(a, b))",  # star import
        "import numpy as np\nprint(np.mean(a))",  # the missing module is not imported here
        "from scipy.stats import (pearsonr",  # not Python
    ],
)
def test_what_cannot_be_rewritten_safely_is_not(code: str) -> None:
    assert import_fix(failed(), code) is None


def test_the_messages_of_every_executor_name_the_module() -> None:
    assert missing_module(failed()) == "scipy.stats"
    assert missing_module(failed("No module named 'scipy'", "ModuleNotFoundError")) == "scipy"
    assert missing_module(failed("module 'sklearn' is allowed but not installed: x")) == "sklearn"
    assert missing_module(failed("name 'x' is not defined", "NameError")) is None


def test_the_hint_names_what_to_use_instead() -> None:
    assert "df['a'].corr(df['b'])" in import_hint(failed())
    assert "np.polyfit" in import_hint(failed("No module named 'sklearn'", "ModuleNotFoundError"))
    assert "leave the plot out" in import_hint(failed("import of 'plotly' is not allowed"))
    assert import_hint(failed("boom", "ValueError")) == ""


async def test_a_cell_nothing_can_stand_in_for_gets_the_hint() -> None:
    cell = "from scipy import stats\nprint(stats.ttest_ind([1, 2, 3], [2, 3, 4]))"
    (result,) = await run_cells([f"<execute>\n{cell}\n</execute>", "@r[0.9]"])
    assert result.tool_output.is_error
    assert "Hint: scipy is not available in this sandbox: use pandas and numpy" in (
        result.tool_output.content
    )
