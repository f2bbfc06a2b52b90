"""The OS sandbox knob, the refusal of host-reaching modules, and what the worker looks like."""

from __future__ import annotations

import os
import pathlib
import warnings

import pytest

from codeact.errors import ExecutorError, UserError
from codeact.executors import RestrictedExecutor
from codeact.executors.restricted import _ossandbox
from codeact.executors.restricted._ossandbox import UnsandboxedWarning, os_sandbox_status
from codeact.executors.restricted.defaults import choose_sandbox

pytestmark = pytest.mark.anyio
NEEDS_BWRAP = pytest.mark.skipif(
    not os_sandbox_status().available and os.environ.get("CI") != "true",
    reason=f"bubblewrap unusable here: {os_sandbox_status().detail}",
)


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as if bubblewrap were not installed."""
    monkeypatch.setenv("CODEACT_BWRAP", "")
    _ossandbox._probe.cache_clear()
    yield
    _ossandbox._probe.cache_clear()


@pytest.mark.parametrize(
    ("module", "hint"),
    [
        ("os", "open() on relative paths"),
        ("posix", "open() on relative paths"),
        ("sys", "sys.stdout"),
        ("builtins", "builtins"),
        ("importlib", "import the allowed modules"),
        ("importlib.util", "import the allowed modules"),
        ("subprocess", "tool"),
        ("ctypes", "native code"),
        ("socket", "tool"),
        ("shutil", "upload()"),
        ("pty", "tool"),
        ("signal", "timeout"),
        ("multiprocessing", "Docker"),
        ("pathlib", "open()"),
        ("os.path", "open()"),
        ("zipfile", "reviewed list"),
        ("sqlite3", "reviewed list"),
        ("xml.etree.ElementTree", "reviewed list"),
    ],
)
def test_host_reaching_stdlib_modules_are_refused_with_what_to_use(module: str, hint: str) -> None:
    for isolation in ("inline", "process"):
        with pytest.raises(UserError, match="allowed_modules") as info:
            RestrictedExecutor(isolation=isolation, allowed_modules=[module])  # type: ignore[arg-type]
        assert hint in str(info.value)


def test_reviewed_stdlib_and_third_party_names_are_accepted() -> None:
    ex = RestrictedExecutor(allowed_modules=["json", "pandas", "numpy", "statistics"])
    assert ex.allowed_modules == ["json", "pandas", "numpy", "statistics"]
    with pytest.raises(UserError, match="module names"):
        RestrictedExecutor(allowed_modules=["../evil"])


def test_os_sandbox_option_is_validated() -> None:
    with pytest.raises(UserError, match="os_sandbox"):
        RestrictedExecutor(isolation="process", os_sandbox="firejail")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="isolation='process'"):
        RestrictedExecutor(isolation="inline", os_sandbox="bwrap")


@NEEDS_BWRAP
async def test_auto_uses_bubblewrap_and_the_worker_is_not_root() -> None:
    async with RestrictedExecutor(isolation="process") as ex:
        assert ex.os_sandboxed and "OS sandbox" in ex.isolation_level
        r = await ex.execute("print(open('probe.txt', 'w').write('x'))")
        assert r.error is None
        pid = ex._worker.worker_pid  # type: ignore[union-attr]
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
        uid_line = next(line for line in status.splitlines() if line.startswith("Uid:"))
        assert "0" not in uid_line.split()[1:], uid_line
        # a fresh PID namespace: the worker is not pid 1 of the host and sees only the sandbox
        ns = next(line for line in status.splitlines() if line.startswith("NSpid:"))
        assert len(ns.split()) == 3, ns  # host pid + sandbox pid
        assert ex.workdir is not None and (ex.workdir / "probe.txt").read_text() == "x"


async def test_auto_without_bubblewrap_warns_and_names_the_package(no_bwrap: None) -> None:
    assert not os_sandbox_status().available
    assert "apt-get install bubblewrap" in os_sandbox_status().fix
    ex = RestrictedExecutor(isolation="process")
    with pytest.warns(UnsandboxedWarning, match="bubblewrap"):
        try:
            await ex.start()
        except ExecutorError as exc:  # a root host whose Python uid 65534 cannot read
            assert "must not run as root" in str(exc) and "bubblewrap" in str(exc)
    assert not ex.os_sandboxed
    await ex.aclose()


async def test_bwrap_required_but_missing_is_a_clear_error(no_bwrap: None) -> None:
    ex = RestrictedExecutor(isolation="process", os_sandbox="bwrap")
    with pytest.raises(ExecutorError, match="bubblewrap"):
        await ex.start()


def test_defaults_offer_data_modules_only_under_the_os_sandbox(no_bwrap: None) -> None:
    choice = choose_sandbox(None)
    assert choice.allowed_modules == ()
    assert "not offered" in choice.warning and "bubblewrap" in choice.warning
    explicit = choose_sandbox(["pandas"])
    assert explicit.allowed_modules == ("pandas",) and "without an OS sandbox" in explicit.warning
    inline = choose_sandbox(None, isolation="inline")
    assert inline.allowed_modules == () and "in-process" in inline.summary


@NEEDS_BWRAP
def test_defaults_offer_data_modules_under_bubblewrap() -> None:
    choice = choose_sandbox(None)
    assert {"pandas", "numpy"} <= set(choice.allowed_modules)
    assert choice.warning == "" and "OS sandbox" in choice.summary


async def test_inline_third_party_modules_warn_once() -> None:
    from codeact.executors.restricted import _allowed

    _allowed._WARNED.discard(("inline", "pandas"))
    with pytest.warns(UnsandboxedWarning, match="reaches the host"):
        async with RestrictedExecutor(allowed_modules=["pandas"]):
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsandboxedWarning)
        async with RestrictedExecutor(allowed_modules=["pandas"]):
            pass


@pytest.mark.parametrize("os_sandbox", ["auto", "none"])
async def test_a_module_file_written_by_a_cell_never_shadows_the_worker_imports(
    os_sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker runs with ``-P``: its working directory is not on sys.path, so a cell that
    writes ``_strptime.py`` and then makes the interpreter import it gets the real module."""
    if os_sandbox == "none" and os.geteuid() == 0:
        monkeypatch.setenv("CODEACT_WORKER_AS_ROOT", "1")  # unsandboxed root worker, for tests
    payload = "open('PWNED', 'w').write('unguarded code ran')\n"
    async with RestrictedExecutor(isolation="process", os_sandbox=os_sandbox) as ex:  # type: ignore[arg-type]
        r = await ex.execute(f"open('_strptime.py', 'w').write({payload!r})")
        assert r.error is None, r.error
        r = await ex.execute("import datetime\nprint(datetime.datetime.strptime('2024', '%Y'))")
        assert r.error is None and "2024-01-01" in r.stdout, r
        assert ex.workdir is not None and not (ex.workdir / "PWNED").exists()


@NEEDS_BWRAP
async def test_worker_sees_only_its_own_processes_and_the_loopback_device() -> None:
    async with RestrictedExecutor(isolation="process", allowed_modules=["pandas", "numpy"]) as ex:
        r = await ex.execute(
            "import pandas as pd\n"
            "print(pd.read_csv('/proc/net/dev', sep='|', skiprows=2, header=None)[0].tolist())"
        )
        assert r.error is None, r.error
        assert "lo:" in r.stdout.replace(" ", "") and "eth" not in r.stdout


def test_a_binary_that_does_not_isolate_is_not_taken_for_bubblewrap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The probe runs a program inside and checks its answer, not just an exit code."""
    monkeypatch.setenv("CODEACT_BWRAP", "/bin/true")
    _ossandbox._probe.cache_clear()
    try:
        status = os_sandbox_status()
        assert not status.available and "does not isolate" in status.detail
    finally:
        _ossandbox._probe.cache_clear()


@NEEDS_BWRAP
async def test_the_user_namespace_mode_of_non_root_hosts_runs_the_data_workload(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Non-root hosts run bubblewrap in a user namespace (uid 65534 inside, no further user
    namespaces); a root CI machine exercises that path by pretending not to be root."""
    from codeact.executors.restricted import _process, executor

    for module in (_ossandbox, _process, executor):
        monkeypatch.setattr(module, "host_is_root", lambda: False)
    plan = _ossandbox.SandboxPlan.build(("pandas",))
    assert not plan.drop_privileges
    assert "--unshare-user" in plan.options(workdir=None, info_fd=None)
    async with RestrictedExecutor(isolation="process", allowed_modules=["pandas"]) as ex:
        await ex.upload("d.csv", b"a,b\n1,2\n3,4\n")
        r = await ex.execute(
            "import pandas as pd\ndf = pd.read_csv('d.csv')\ndf.sum().to_csv('out.csv')\n"
            "print(pd.read_csv('/proc/self/uid_map', header=None, sep=r'\\s+').iloc[0, 0])"
        )
        assert r.error is None, r.error
        assert r.stdout.strip() == "65534", r.stdout  # uid 65534 inside the namespace
        assert b"a,4" in await ex.download("out.csv")
