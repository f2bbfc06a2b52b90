"""Build the default sandbox image, offline if need be (``codeact sandbox build``).

1. Download the pinned wheels (sandbox-image/requirements.txt) on the host with pip.
2. Find a base image: ``--base`` (default ``python:3.11-slim``) if present or pullable; else a
   local Debian base ``codeact-base:bookworm``, made with ``debootstrap --variant=minbase`` and
   ``docker import`` when it does not exist yet.
3. ``docker build`` sandbox-image/Dockerfile with that base → ``codeact-sandbox:<version>``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codeact._version import __version__
from codeact.executors.kernel import KERNEL_SOURCE

IMAGE = f"codeact-sandbox:{__version__}"
LOCAL_BASE = "codeact-base:bookworm"
DEFAULT_BASE = "python:3.11-slim"
ROOT = Path(__file__).resolve().parents[3]
SOURCE_DIR = ROOT / "sandbox-image"


def _say(msg: str) -> None:
    print(f"[sandbox build] {msg}", file=sys.stderr, flush=True)


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(cmd, check=True, **kw)  # type: ignore[call-overload, no-any-return]


def image_exists(name: str) -> bool:
    """True when the engine has ``name``."""
    return subprocess.run(["docker", "image", "inspect", name], capture_output=True).returncode == 0


def _base_image(requested: str) -> str:
    if image_exists(requested):
        return requested
    _say(f"pulling {requested} ...")
    pulled = subprocess.run(["docker", "pull", "-q", requested], capture_output=True, timeout=120)
    if pulled.returncode == 0:
        return requested
    _say(f"cannot pull {requested} (no registry?): using a local Debian base instead")
    if image_exists(LOCAL_BASE):
        return LOCAL_BASE
    if shutil.which("debootstrap") is None:
        raise SystemExit(
            "debootstrap is needed to make a base image offline: apt-get install -y debootstrap"
        )
    with tempfile.TemporaryDirectory(prefix="codeact-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        _say("debootstrap --variant=minbase bookworm (about a minute) ...")
        _run(
            [
                "debootstrap",
                "--variant=minbase",
                "--include=python3,python3-venv",
                "bookworm",
                str(rootfs),
            ],
            stdout=subprocess.DEVNULL,
        )
        _say(f"docker import → {LOCAL_BASE}")
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        _run(["docker", "import", "-", LOCAL_BASE], stdin=tar.stdout, stdout=subprocess.DEVNULL)
        tar.wait()
    return LOCAL_BASE


def build(base: str = DEFAULT_BASE, tag: str = IMAGE, force: bool = False) -> str:
    """Build the image (unless it exists and ``force`` is false); returns its tag."""
    if image_exists(tag) and not force:
        _say(f"{tag} already exists (use --force to rebuild)")
        return tag
    t0 = time.monotonic()
    context = SOURCE_DIR / "build"
    shutil.rmtree(context, ignore_errors=True)
    wheels = context / "wheels"
    wheels.mkdir(parents=True)
    shutil.copy(SOURCE_DIR / "Dockerfile", context / "Dockerfile")
    shutil.copy(SOURCE_DIR / "requirements.txt", wheels / "requirements.txt")
    (context / "kernel.py").write_text(KERNEL_SOURCE)
    _say("downloading the wheelhouse with pip ...")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--only-binary=:all:",
            "--python-version",
            "3.11",
            "--implementation",
            "cp",
            "--platform",
            "manylinux2014_x86_64",
            "--platform",
            "manylinux_2_17_x86_64",
            "--platform",
            "manylinux_2_28_x86_64",
            "-d",
            str(wheels),
            "-r",
            str(SOURCE_DIR / "requirements.txt"),
        ]
    )
    base_image = _base_image(base)
    _say(f"docker build {tag} FROM {base_image} ...")
    _run(
        [
            "docker",
            "build",
            "-q",
            "--build-arg",
            f"BASE_IMAGE={base_image}",
            "-t",
            tag,
            str(context),
        ],
        stdout=subprocess.DEVNULL,
    )
    size = subprocess.run(
        ["docker", "image", "inspect", "-f", "{{.Size}}", tag], capture_output=True, text=True
    ).stdout.strip()
    _say(f"built {tag} in {time.monotonic() - t0:.0f} s, {int(size or 0) / 1e6:.0f} MB")
    return tag


def main(argv: list[str] | None = None) -> int:
    """``python -m codeact.executors.docker.image [--base IMAGE] [--force]``"""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", default=DEFAULT_BASE)
    parser.add_argument("--tag", default=IMAGE)
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    build(args.base, args.tag, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
