"""Where the CLI's settings come from: options (before or after the command), the
environment, the XDG folders; core errors naming the options that set what they name."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.trace import read_trace
from tests.cli_support import ANSWER, TURNS, script
from tui.cli import app

pytestmark = pytest.mark.usefixtures("cli_env")  # without the user's settings


def test_the_command_line_beats_the_environment_wherever_the_option_stands(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCSAGENT_MAX_STEPS", "5")
    model = script(tmp_path, [TURNS[0]] * 6)
    args = ["--max-steps", "2", "ask", "How?", "--docs", str(docs), "--model", model]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3
    assert result.stderr.splitlines()[-1] == "docsagent: no answer within 2 steps"
    trace = tmp_path / "before.jsonl"
    model = script(tmp_path, TURNS)
    args = ["--trace", str(trace), "ask", "How?", "--docs", str(docs), "--model", model]
    assert CliRunner().invoke(app, args).exit_code == 0
    assert read_trace(trace).complete


def test_a_blank_llm_key_does_not_hide_the_openai_key() -> None:
    from tui.commands.options import Options, make_config

    config, notice = make_config(Options(), {"LLM_API_KEY": " ", "OPENAI_API_KEY": "sk-x"})
    assert (config.api_key, config.model) == ("sk-x", "gpt-4o-mini")
    assert notice == "docsagent: using gpt-4o-mini at api.openai.com because OPENAI_API_KEY is set"


def test_the_trace_folder_follows_xdg_state_home(tmp_path: Path) -> None:
    from tui.commands.options import Options, make_config

    config, _ = make_config(Options(), {"XDG_STATE_HOME": str(tmp_path)})
    assert config.trace_dir == tmp_path / "docsagent" / "traces"
    given = tmp_path / "mine"
    config, _ = make_config(Options(trace_dir=given), {"XDG_STATE_HOME": str(tmp_path)})
    assert config.trace_dir == given


@pytest.mark.parametrize("value", ["", "  ", "relative/state"])
def test_a_blank_or_relative_xdg_folder_counts_as_unset(value: str) -> None:
    """As the XDG spec says: no trace folder named by spaces in the current directory."""
    from tui.commands.options import Options, history_file, make_config, settings_file

    home = Path.home()
    env = {"XDG_STATE_HOME": value, "XDG_CACHE_HOME": value, "XDG_CONFIG_HOME": value}
    config, _ = make_config(Options(), env)
    assert config.trace_dir == home / ".local" / "state" / "docsagent" / "traces"
    assert history_file(env) == home / ".local" / "state" / "docsagent" / "history"
    assert config.cache_dir == home / ".cache" / "docsagent"
    assert settings_file(env) == home / ".config" / "docsagent" / "settings.json"


def test_core_errors_gain_the_options_that_set_what_they_name() -> None:
    from agent import ConfigError, ModelError
    from tui.commands.options import explain

    assert explain(ConfigError("max_steps must be at least 1", fields=("max_steps",))) == (
        "max_steps must be at least 1; check --max-steps"
    )
    assert explain(ModelError("no such model", fields=("model", "base_url"))) == (
        "no such model; check --model and --base-url"
    )
    assert explain(ModelError("no key", fields=("api_key",))) == (
        "no key; set LLM_API_KEY (or OPENAI_API_KEY)"
    )
    assert explain(ModelError("the server failed")) == "the server failed"


def test_the_cache_folder_comes_from_the_environment() -> None:
    from tui.commands.options import Options, make_config

    home = Path.home()
    assert make_config(Options(), {})[0].cache_dir == home / ".cache" / "docsagent"
    xdg = {"XDG_CACHE_HOME": "/x/cache"}
    assert make_config(Options(), xdg)[0].cache_dir == Path("/x/cache/docsagent")
    ours = {**xdg, "DOCSAGENT_CACHE_DIR": "~/idx"}
    assert make_config(Options(), ours)[0].cache_dir == home / "idx"


def test_the_endpoint_recorded_is_host_and_path_without_credentials_or_query() -> None:
    from agent import Config

    config = Config(model="m", base_url="https://user:sk-secret@llm.example.com:8443/v1?key=sk-q")
    assert config.endpoint == "https://llm.example.com:8443/v1"
    assert Config(model="offline").endpoint is None


def test_options_before_the_command_count_too(docs: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--docs", str(tmp_path / "nope"), "ask", "q"])
    assert result.exit_code == 2
    assert "docs folder not found" in result.stderr
    model = script(tmp_path, TURNS)
    result = CliRunner().invoke(app, ["--docs", str(docs), "--model", model, "ask", "How?"])
    assert (result.exit_code, result.stdout) == (0, ANSWER + "\n")
