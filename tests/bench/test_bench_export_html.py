"""The HTML export in a real headless browser (`make bench`).

Chromium comes from Debian's packages: installed here when missing and possible,
otherwise the test is skipped with the reason. The page is rendered to a screenshot in
tests/output/ for a person to look at, and its DOM is checked.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent.export import export_trace
from agent.trace import read_trace
from tests.bench.system import command

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "tests" / "output"


def chromium() -> str:
    """The browser (installed from Debian only with BENCH_INSTALL=1); else skip."""
    return command(("chromium", "chromium-browser"), "chromium")


def test_the_html_export_renders_in_chromium() -> None:
    browser = chromium()
    OUTPUT.mkdir(exist_ok=True)
    page = OUTPUT / "export.html"
    page.write_text(
        export_trace(read_trace(ROOT / "tests/fixtures/answered.jsonl"), "html"), "utf-8"
    )
    shot = OUTPUT / "export.png"
    shot.unlink(missing_ok=True)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    no_scripts = ["--disable-javascript"]  # the page reads with scripts off
    subprocess.run(
        [browser, *flags, *no_scripts, f"--screenshot={shot}", "--window-size=1000,1600"]
        + [page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    dom = subprocess.run(
        [browser, *flags, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "<h1>What is the default timeout?</h1>" in dom
    assert dom.count("<details") >= 1 and "Totals" in dom
    assert "<strong>5 seconds</strong>" in dom  # the answer's Markdown, rendered
    assert shot.stat().st_size > 10_000  # a real picture, not an empty page
    print(f"\nexport: rendered in {Path(browser).name}; screenshot {shot.relative_to(ROOT)}")
