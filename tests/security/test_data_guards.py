"""The guards stay a second layer (issue 21, item 5): every route in ``corpus_datalibs`` is
refused with the OS sandbox switched off — in inline mode, in a process worker, and in a session
configured exactly as under bubblewrap (the packages' own I/O unconfined) — and the ordinary
data workload keeps working; ``allow_pickle=True`` is the documented way back to pickles."""

from __future__ import annotations

import io
import os
import pathlib
import time
import warnings
from typing import Any

import pytest

from codeact.executors import RestrictedExecutor
from codeact.executors.restricted._interpreter import RestrictedInterpreter
from tests.security.corpus_datalibs import DATA_CASES

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")
pytestmark = pytest.mark.anyio
MODULES = ["pandas", "numpy", "matplotlib"]
MODES = ("inline", "process", "as-under-bwrap")


@pytest.fixture(autouse=True)
def _worker_may_run_as_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a root host without bubblewrap the unsandboxed worker needs this switch (tests only)."""
    monkeypatch.setenv("CODEACT_WORKER_AS_ROOT", "1")


class Runner:
    """Runs cells in one of ``MODES``, always with the OS sandbox off."""

    def __init__(self, mode: str, workdir: pathlib.Path, **options: Any) -> None:
        self.mode = mode
        self.workdir = workdir
        self.options = options
        self.executor: RestrictedExecutor | None = None
        self.session: RestrictedInterpreter | None = None

    async def __aenter__(self) -> Runner:
        if self.mode == "as-under-bwrap":
            self.session = RestrictedInterpreter(
                allowed_modules=MODULES,
                workdir=str(self.workdir),
                confine_readers=False,
                **self.options,
            )
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.executor = RestrictedExecutor(
                    isolation=self.mode,  # type: ignore[arg-type]
                    os_sandbox="none",
                    allowed_modules=MODULES,
                    workdir=self.workdir,
                    timeout=60,
                    **self.options,
                )
                await self.executor.start()
            assert not self.executor.os_sandboxed
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.executor is not None:
            await self.executor.aclose()

    async def run(self, code: str) -> tuple[str | None, str, str | None]:
        """(error as "type: message" or None, stdout, value)."""
        if self.session is not None:
            raw = self.session.run_cell(code, time.monotonic() + 60)
            error = raw["error"]
            text = f"{error['type']}: {error['message']}" if error else None
            return text, raw["stdout"], raw["value"]
        assert self.executor is not None
        r = await self.executor.execute(code)
        text = f"{r.error.type}: {r.error.message}" if r.error else None
        return text, r.stdout, r.value


@pytest.mark.parametrize("mode", MODES)
async def test_every_route_is_refused(mode: str, tmp_path: pathlib.Path) -> None:
    failures = []
    async with Runner(mode, tmp_path) as runner:
        for case in DATA_CASES:
            error, _out, value = await runner.run(case.code)
            if error is None or case.match not in error:
                failures.append(f"{case.id}: got error={error!r} value={value!r}")
    assert not failures, "routes not refused:\n" + "\n".join(failures)
    assert not (tmp_path / "x.png").exists()


def test_the_corpus_is_big_enough() -> None:
    assert len({c.id for c in DATA_CASES}) == len(DATA_CASES) >= 30


WORKLOAD = """
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
df = pd.read_csv(open('sales.csv'))
by_city = df.groupby('city').units.sum()
big = df.query('units > 2 and city != "Oslo"')
t = 3
also = df.query('units >= @t')
df = df.eval('total = units * price')
df['double'] = df.eval('units * 2')
stats = df.groupby('city').agg(units=('units', 'sum'), mean_price=('price', 'mean'))
shares = df.groupby('city').units.transform('sum')
applied = df.units.apply(lambda u: u + 1).tolist()
pd.options.display.max_rows = 30
pd.set_option('display.max_columns', 8)
plt.rcParams['figure.figsize'] = (4, 3)
plt.style.use('ggplot')
fig, ax = plt.subplots()
by_city.plot.bar(ax=ax)
with open('units.png', 'wb') as f:
    fig.savefig(f, format='png')
with open('totals.csv', 'w') as f:
    stats.to_csv(f)
arr = np.load(open('arr.npy', 'rb'))
isinstance(arr, np.ndarray), np.ndarray((2,), 'i8', np.arange(2)).tolist()
result = (
    by_city.to_dict(), len(big), len(also), float(df.total.sum()), df.double.tolist(),
    stats.units.tolist(), shares.tolist(), applied, arr.tolist(), type(arr) is np.ndarray,
)
plt.close('all')
plt.rcdefaults()  # inline sessions share the host's matplotlib and pandas settings
pd.reset_option('display.max_rows')
pd.reset_option('display.max_columns')
result
"""
SALES = b"city,units,price\nOslo,3,2.5\nRome,5,1.0\nRome,1,4.0\n"


def _npy() -> bytes:
    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.arange(3))
    return buf.getvalue()


@pytest.mark.parametrize("mode", MODES)
async def test_the_ordinary_data_workload_still_works(mode: str, tmp_path: pathlib.Path) -> None:
    (tmp_path / "sales.csv").write_bytes(SALES)
    (tmp_path / "arr.npy").write_bytes(_npy())
    os.chmod(tmp_path, 0o777)
    for name in ("sales.csv", "arr.npy"):
        os.chmod(tmp_path / name, 0o666)
    async with Runner(mode, tmp_path) as runner:
        error, _out, value = await runner.run(WORKLOAD)
    assert error is None, error
    assert value == (
        "({'Oslo': 3, 'Rome': 6}, 1, 2, 16.5, [6, 10, 2], [3, 6], [3, 6, 6], [4, 6, 2], "
        "[0, 1, 2], True)"
    )
    assert (tmp_path / "units.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "totals.csv").read_text().startswith("city,units,mean_price")


@pytest.mark.parametrize("mode", MODES)
async def test_allow_pickle_is_the_explicit_way_back(mode: str, tmp_path: pathlib.Path) -> None:
    """With the opt-in a cell reads its own pickles (and a crafted one runs: that is what the
    option gives up); without it, the same cells are refused."""
    cells = [
        "import pandas as pd\nimport numpy as np\n"
        "with open('evil.pkl', 'wb') as f:\n    f.write(b\"cbuiltins\\nlen\\n(S'abc'\\ntR.\")\n"
        "df = pd.DataFrame({'a': [1, 2]})\nwith open('d.pkl', 'wb') as f:\n    df.to_pickle(f)\n",
        "pd.read_pickle(open('d.pkl', 'rb')).a.tolist()",
        "np.load(open('evil.pkl', 'rb'), allow_pickle=True)",
    ]
    async with Runner(mode, tmp_path, allow_pickle=True) as runner:
        values = [(await runner.run(c))[::2] for c in cells]
    assert values == [(None, None), (None, "[1, 2]"), (None, "3")]
    async with Runner(mode, tmp_path) as runner:
        await runner.run(cells[0])
        refused = [(await runner.run(c))[0] for c in cells[1:]]
    assert refused[0] is not None and "read_pickle" in refused[0]
    assert refused[1] is not None and "allow_pickle" in refused[1]


def test_allow_pickle_is_validated() -> None:
    from codeact.errors import UserError

    with pytest.raises(UserError, match="allow_pickle"):
        RestrictedExecutor(allow_pickle="yes")  # type: ignore[arg-type]
