"""What a bench needs from the system: installed only when asked (`BENCH_INSTALL=1`)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


def may_install() -> bool:
    """Whether `make bench` may install system packages: only with BENCH_INSTALL=1."""
    return os.environ.get("BENCH_INSTALL") == "1"


def command(names: tuple[str, ...], package: str) -> str:
    """The first of `names` on PATH; else the Debian `package` installed when allowed.

    A bench that cannot have it is skipped, saying what is missing and how to get it.
    """
    found = next((path for name in names if (path := shutil.which(name))), None)
    if found is None and may_install() and shutil.which("apt-get"):
        subprocess.run(
            ["apt-get", "install", "-y", "-q", package], capture_output=True, timeout=600
        )
        found = next((path for name in names if (path := shutil.which(name))), None)
    if found is None:
        how = "could not be installed" if may_install() else "run with BENCH_INSTALL=1 to install"
        pytest.skip(f"{names[0]} is missing: apt-get install {package} ({how})")
    return found
