"""The README's sample outputs, from real runs: `make docs` rewrites them, a test checks them.

A sample is a fenced block right after a marker naming the command and the terminal's
width::

    <!-- sample 80: docsagent ask "How do I replay a trace?" -->

The command runs through `sh` on a pseudo-terminal of that width (stdout and stderr both
on it, as a user sees them), with the offline model, the bundled manual, no API key and
fresh trace and cache folders. What the screen then shows becomes the block, with what
changes from run to run masked in the summary: the trace folder, the time in the
trace's name, and the seconds the run took. The answer is left as it is.

    python -m tests.readme_samples          # rewrite README.md's samples
    python -m tests.readme_samples --check  # exit 1, with a diff, if one is stale
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.cli_support import read_until_closed

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SAMPLE = re.compile(r"<!-- sample (\d+): (.+?) -->\n```(\w*)\n(.*?)```", re.DOTALL)
TRACE_DIR = "~/.local/state/docsagent/traces"
SGR = re.compile(r"\x1b\[[0-9;]*m")
ERASE = re.compile(r"\r\x1b\[K|\r")
STAMP = re.compile(r"((?:^|· )trace: .*?)\d{8}-\d{6}-\d{3}-", re.MULTILINE)  # the summary's
SECONDS = re.compile(r"(^|· )\d+\.\d s(?=$| · )", re.MULTILINE)


@dataclass(frozen=True)
class Sample:
    """One marked block of a Markdown file."""

    width: int
    command: str
    start: int
    end: int
    text: str


def samples(markdown: str) -> list[Sample]:
    """The marked samples of `markdown`, in order."""
    return [
        Sample(int(m.group(1)), m.group(2), m.start(4), m.end(4), m.group(4))
        for m in SAMPLE.finditer(markdown)
    ]


def screen(data: bytes) -> str:
    """What a terminal shows for `data`: styling dropped, rewritten lines rubbed out."""
    text = SGR.sub("", data.decode("utf-8")).replace("\r\n", "\n")
    lines = [ERASE.split(line.replace("\x1b[K", ""))[-1].rstrip() for line in text.split("\n")]
    return "\n".join(lines).strip("\n") + "\n"


def mask(text: str, traces: Path) -> str:
    """`text` without what changes between runs: where traces go, when, how long."""
    text = text.replace(str(traces), TRACE_DIR)
    text = STAMP.sub(r"\g<1>…-", text)
    return SECONDS.sub(r"\g<1>0.0 s", text)


def run(command: str, width: int) -> str:
    """What `command` shows on a terminal `width` columns wide, masked."""
    import fcntl
    import pty
    import struct
    import termios

    with tempfile.TemporaryDirectory(prefix="docsagent-sample-") as folder:
        traces = Path(folder) / "traces"
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(("LLM_", "OPENAI_", "DOCSAGENT_")) and name != "COLUMNS"
        }
        env.update(
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            TERM="xterm-256color",
            DOCSAGENT_TRACE_DIR=str(traces),
            DOCSAGENT_CACHE_DIR=str(Path(folder) / "cache"),
        )
        main, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, width, 0, 0))
        process = subprocess.Popen(
            ["sh", "-c", command], stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
            env=env, cwd=folder,
        )  # fmt: skip
        os.close(follower)
        output = read_until_closed(main)
        os.close(main)
        process.wait(timeout=60)
        return mask(screen(output), traces)


def refreshed(markdown: str) -> str:
    """`markdown` with every sample as the command shows it now."""
    for sample in reversed(samples(markdown)):
        shown = run(sample.command, sample.width)
        markdown = markdown[: sample.start] + shown + markdown[sample.end :]
    return markdown


def stale(path: Path = README) -> str:
    """A diff of the samples that no longer match what the commands show ('' if none)."""
    now = path.read_text(encoding="utf-8")
    diff = difflib.unified_diff(
        now.splitlines(keepends=True),
        refreshed(now).splitlines(keepends=True),
        f"{path.name} (as written)",
        f"{path.name} (as the commands show it now)",
    )
    return "".join(diff)


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        diff = stale()
        sys.stdout.write(diff or "README.md's samples match.\n")
        return 1 if diff else 0
    now = README.read_text(encoding="utf-8")
    new = refreshed(now)
    if new != now:
        README.write_text(new, encoding="utf-8")
    print(f"README.md: {len(samples(now))} samples, {'rewritten' if new != now else 'unchanged'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
