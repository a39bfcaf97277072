from __future__ import annotations

import click
import pytest
from pi_core.cli.run_options import RUN_OPTIONS, RunOptions, check_run_options, run_options_from_params


def _parse(argv: list[str]) -> RunOptions:
    command = click.Command(
        "pi", params=[*RUN_OPTIONS, click.Argument(["args"], nargs=-1)], callback=lambda **kw: kw
    )
    params = command.main(argv, standalone_mode=False)
    return run_options_from_params(params)


def test_parse_messages_files_and_flags_in_any_order() -> None:
    options = _parse(["@a.md", "-p", "first", "--model", "openai/gpt-4o:high", "second", "-nt", "@b.png"])
    assert options.messages == ("first", "second")
    assert options.file_args == ("a.md", "b.png")
    assert options.print_ and options.no_tools and options.model == "openai/gpt-4o:high"


def test_parse_repeatable_and_list_flags() -> None:
    options = _parse(["--skill", "x", "--skill", "y", "--tools", "read, bash", "--models", "a,b*"])
    assert options.skills == ("x", "y")
    assert options.tools == ("read", "bash")
    assert options.models == ("a", "b*")


def test_list_models_takes_an_optional_search() -> None:
    assert _parse(["--list-models"]).list_models == ""
    assert _parse(["--list-models", "gpt"]).list_models == "gpt"
    assert _parse([]).list_models is None


def test_unknown_flag_is_a_usage_error() -> None:
    with pytest.raises(click.NoSuchOption):
        _parse(["--bogus"])


def test_invalid_mode_is_ignored_and_modes_resolve_as_pi() -> None:
    assert _parse(["--mode", "weird"]).mode is None
    assert _parse(["--mode", "rpc", "-p"]).app_mode(stdin_is_tty=True) == "rpc"
    assert _parse(["--mode", "json"]).app_mode(stdin_is_tty=True) == "json"
    assert _parse([]).app_mode(stdin_is_tty=False) == "print"
    assert _parse([]).app_mode(stdin_is_tty=True) == "interactive"


def test_check_warns_on_invalid_thinking_and_drops_it() -> None:
    options, diagnostics = check_run_options(_parse(["--thinking", "maximal"]), "print")
    assert options.thinking is None
    assert [d.render() for d in diagnostics] == [
        'Warning: Invalid thinking level "maximal". Valid values: off, minimal, low, medium, high, xhigh, max'
    ]
    options, diagnostics = check_run_options(_parse(["--thinking", "max"]), "print")
    assert options.thinking == "max" and diagnostics == []


def test_check_session_id_format_and_conflicts() -> None:
    options, diagnostics = check_run_options(_parse(["--session-id", "ok.id-1", "-n", "x"]), "print")
    assert diagnostics == [] and (options.session_id, options.name) == ("ok.id-1", "x")
    for bad in ("-x", "a/b", "x.", ""):
        _, diagnostics = check_run_options(_parse(["--session-id", bad]), "print")
        assert [d.kind for d in diagnostics] == ["error"], bad
    _, diagnostics = check_run_options(_parse(["--session-id", "a1", "-c", "-r"]), "print")
    assert [d.render() for d in diagnostics] == [
        "Error: --session-id cannot be combined with --continue, --resume"
    ]


def test_exclude_tools_is_a_list() -> None:
    options, _ = check_run_options(_parse(["-xt", "bash, e*", "-t", "+grep"]), "print")
    assert options.exclude_tools == ("bash", "e*") and options.tools == ("+grep",)


def test_check_rejects_fork_combinations_and_rpc_files() -> None:
    _, diagnostics = check_run_options(_parse(["--fork", "abc", "-c", "--no-session"]), "print")
    assert [d.render() for d in diagnostics] == [
        "Error: --fork cannot be combined with --continue, --no-session"
    ]
    _, diagnostics = check_run_options(_parse(["@x"]), "rpc")
    assert diagnostics[0].render() == "Error: @file arguments are not supported in RPC mode"


def test_use_theme_names_one_theme_or_a_pair() -> None:
    assert _parse(["--use-theme", "light"]).use_theme == "light"
    assert _parse(["--use-theme", "sun/moon", "--theme", "t.json"]).use_theme == "sun/moon"
    assert _parse([]).use_theme is None
    with pytest.raises(click.BadOptionUsage, match="requires an argument"):
        _parse(["--use-theme"])
