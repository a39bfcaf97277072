"""``pi --help``: pi's usage, run options and commands, plus the flags plugins register (cached).

Everything runs the real ``pi`` executable in a throwaway agent dir and project. Plugins used here
append to a marker file when imported, so a test can tell a cached answer (no import) from a
fresh load.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from pi_core.cli import flag_cache
from pi_core.cli.run_options import RUN_OPTIONS
from pi_core.plugins.trust import TRUST_FILE
from pi_core.testing.plugins import fake_distribution

PI = str(Path(sys.executable).with_name("pi"))


def flag_plugin(flag: str) -> str:
    return textwrap.dedent(
        f"""
        import os

        from pi_core import hookimpl

        with open(os.environ["PI_TEST_MARKER"], "a") as marker:
            marker.write({flag!r} + "\\n")


        @hookimpl
        def register_flags(register):
            register({flag!r}, type="string", description="flag from a test plugin")
        """
    )


@dataclass
class Env:
    root: Path
    project: Path
    agent: Path
    site: Path
    marker: Path

    def pi(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "HOME": str(self.root / "home"),
            "PI_CODING_AGENT_DIR": str(self.agent),
            "PI_TEST_MARKER": str(self.marker),
            "PYTHONPATH": str(self.site),
            "COLUMNS": "80",
        }
        env.pop("PI_DISABLED_PLUGINS", None)
        return subprocess.run(
            [PI, *args],
            cwd=self.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def help(self, *args: str) -> str:
        result = self.pi(*args, "--help")
        assert result.returncode == 0, result.stderr
        return result.stdout

    def imports(self) -> list[str]:
        """Plugins imported so far (one line per import of a marker-writing plugin)."""
        return self.marker.read_text().split() if self.marker.exists() else []


@pytest.fixture
def env(tmp_path: Path) -> Env:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "site").mkdir()
    return Env(tmp_path, project, tmp_path / "agent", tmp_path / "site", tmp_path / "marker")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def section(text: str, title: str) -> list[str]:
    """The lines of a help section, up to the next blank line followed by a heading."""
    lines = text.splitlines()
    start = lines.index(f"{title}:") + 1
    end = next((i for i in range(start, len(lines)) if lines[i] and not lines[i][0].isspace()), len(lines))
    return [line for line in lines[start:end] if line]


def test_help_has_pis_usage_every_run_option_and_the_commands(env: Env) -> None:
    text = env.help()
    assert env.pi("-h").stdout == text
    assert "  pi [options] [@files...] [messages...]" in text.splitlines()
    commands = section(text, "Commands")
    for name in ("plugins", "trust", "untrust", "run"):
        assert any(line.startswith(f"  pi {name} ") for line in commands), name
    options = "\n".join(section(text, "Options"))
    for option in RUN_OPTIONS:
        for opt in option.opts:
            assert opt in options, opt
    for opt in ("--extension", "--no-extensions", "--trust-project", "--trace-hooks", "--help", "--version"):
        assert opt in options


def test_options_are_the_text_pi_run_help_gives(env: Env) -> None:
    # No third-party plugins, so that no plugin flag sits among `pi run --help`'s options.
    run_help = env.pi("run", "--no-extensions", "--help")
    assert run_help.returncode == 0, run_help.stderr
    ours = section(env.help("--no-extensions"), "Options")
    theirs = section(run_help.stdout, "Options")
    # The flag of the built-in mcp plugin: `pi --help` lists it with the plugins' flags.
    theirs = [line for line in theirs if "--no-mcp" not in line and "(plugin mcp)" not in line]
    assert theirs[-1].split() == ["-h,", "--help", "Show", "this", "message", "and", "exit."]
    assert [row.split() for row in ours[-2:]] == [
        ["-h,", "--help", "Show", "this", "help"],
        ["-v,", "--version", "Show", "version", "number"],
    ]
    assert theirs[:-1] == ours[:-2]


def test_flag_of_an_e_file_is_listed_then_served_from_the_cache(env: Env) -> None:
    ext = write(env.root / "flagger.py", flag_plugin("plan-file"))
    text = env.help("-e", str(ext))
    rows = section(text, "Plugin options")
    assert any("--plan-file VALUE" in row and "(plugin flagger)" in row for row in rows), rows
    assert env.imports() == ["plan-file"]
    assert env.help("-e", str(ext)) == text
    assert env.imports() == ["plan-file"], "the second --help must come from the cache"
    # Without -e the flag is not part of what loads.
    assert "--plan-file" not in env.help()


def test_cache_invalidates_when_a_plugin_file_changes(env: Env) -> None:
    ext = write(env.root / "flagger.py", flag_plugin("plan-file"))
    env.help("-e", str(ext))
    ext.write_text(flag_plugin("plan-directory"))
    text = env.help("-e", str(ext))
    assert "--plan-directory VALUE" in text and "--plan-file" not in text
    assert env.imports() == ["plan-file", "plan-directory"]


def test_cache_invalidates_when_a_project_extension_is_added(env: Env) -> None:
    write(env.project / ".pi" / "settings.json", "{}")
    write(env.agent / "extensions" / "mine.py", flag_plugin("mine"))
    assert "--mine VALUE" in env.help()
    write(env.agent / "extensions" / "second.py", flag_plugin("second"))
    text = env.help()
    assert "--mine VALUE" in text and "--second VALUE" in text


def test_flag_of_an_added_distribution_appears(env: Env) -> None:
    before = env.help()
    assert "--dist-flag" not in before and env.help() == before
    fake_distribution(
        env.site,
        "pi-ext-distflag",
        entry_points={"distflag": "pi_ext_distflag.plugin"},
        modules={"pi_ext_distflag.plugin": flag_plugin("dist-flag")},
    )
    text = env.help()
    rows = section(text, "Plugin options")
    assert any("--dist-flag VALUE" in row and "(plugin distflag)" in row for row in rows), rows
    assert env.imports() == ["dist-flag"]
    assert env.help() == text and env.imports() == ["dist-flag"]


def test_untrusted_project_flags_are_not_loaded_and_the_help_says_how_to_trust(env: Env) -> None:
    write(env.project / ".pi" / "extensions" / "proj.py", flag_plugin("proj-flag"))
    for _ in range(2):  # slow path, then the cached answer says the same
        text = env.help()
        assert "--proj-flag" not in text
        assert "Not shown: flags of this untrusted project's plugins (trust it: `pi trust`)." in text
    assert env.imports() == []
    assert "--proj-flag VALUE" in env.help("--trust-project")
    assert env.pi("trust").returncode == 0
    text = env.help()
    assert "--proj-flag VALUE" in text and "untrusted" not in text


def test_a_run_and_pi_plugins_write_the_cache(env: Env) -> None:
    one = write(env.root / "one.py", flag_plugin("one-flag"))
    two = write(env.root / "two.py", flag_plugin("two-flag"))
    env.pi("-e", str(one), "-p", "hello")  # fails later for want of a model; plugins loaded first
    assert env.imports() == ["one-flag"]
    assert "--one-flag VALUE" in env.help("-e", str(one))
    assert env.imports() == ["one-flag"]
    assert env.pi("plugins", "-e", str(two)).returncode == 0
    assert "--two-flag VALUE" in env.help("-e", str(two))
    assert env.imports() == ["one-flag", "two-flag"]


def test_help_anywhere_in_a_run_command_line_is_pis_help(env: Env) -> None:
    ext = write(env.root / "flagger.py", flag_plugin("plan-file"))
    text = env.pi("-p", "-e", str(ext), "a message", "-h").stdout
    assert text.startswith("pi - ") and "--plan-file VALUE" in text


def test_help_reads_the_provider_heads_as_the_whole_file_has_them() -> None:
    import json
    from importlib import resources

    from pi_core.cli.helpdoc import provider_heads

    whole = json.loads(resources.files("pi_builtin_providers").joinpath("providers.json").read_text())
    expected = [{k: v for k, v in p.items() if k != "models"} for p in whole["providers"]]
    assert provider_heads() == expected


def test_trust_file_name_matches_the_plugin_layer() -> None:
    assert flag_cache.TRUST_FILE == TRUST_FILE


def test_help_names_the_tools_the_key_variables_and_shows_examples(env: Env) -> None:
    from pi_builtin_tools.registry import BUILTIN_TOOL_NAMES, DEFAULT_ACTIVE_TOOLS
    from pi_core.cli.helpdoc import DEFAULT_TOOLS, OTHER_TOOLS

    assert tuple(DEFAULT_ACTIVE_TOOLS) == DEFAULT_TOOLS
    assert set(DEFAULT_TOOLS) | set(OTHER_TOOLS) == set(BUILTIN_TOOL_NAMES)
    text = env.help()
    tools = " ".join(section(text, "Tools (pi-coding-agent-tools)"))
    assert all(name in tools for name in BUILTIN_TOOL_NAMES)
    keys = "\n".join(
        section(text, "Environment: API keys (the first provider with one gives the default model)")
    )
    settings = "\n".join(section(text, "Environment: provider settings"))
    own = "\n".join(section(text, "Environment: pi"))
    # Every key variable and base-URL variable of every provider definition is listed.
    from pi_core.ai.models import _PLACEHOLDER

    from pi_builtin_providers import provider_definitions

    for definition in provider_definitions():
        for name in definition.env:
            assert name in keys, name
        for name in [*_PLACEHOLDER.findall(definition.base_url), definition.base_url_env]:
            assert name is None or name in settings, name
        # (click wraps at hyphens: compare without the white space)
        assert definition.local == (definition.id in "".join(keys.split("local servers:")[-1].split()))
    assert "AZURE_OPENAI_DEPLOYMENT_NAME_MAP" in settings
    from pi_core.ai.providers.openai_responses import AZURE_API_VERSION_ENV

    assert AZURE_API_VERSION_ENV in settings and "(default: v1)" in " ".join(settings.split())
    from pi_builtin_providers.copilot import LOGIN_URL_ENV

    assert LOGIN_URL_ENV in settings and "COPILOT_GITHUB_TOKEN" in keys
    from pi_builtin_providers.codex import LOGIN_URL_ENV as CODEX_LOGIN_URL_ENV

    assert CODEX_LOGIN_URL_ENV in settings and "(/login openai-codex)" in keys
    assert "PI_CODING_AGENT_DIR" in own and "(default: ~/.pi/agent)" in " ".join(own.split())
    examples = section(text, "Examples")
    assert "  pi" in examples and any(line.startswith("  pi --provider ollama") for line in examples)
    assert "default: google" not in text  # the first provider with a key is the default
