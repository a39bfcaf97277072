from __future__ import annotations

from pathlib import Path

from pi_core.cli.helpdoc import options_help, render

DOC = Path(__file__).parents[3] / "docs" / "cli.md"


def test_docs_cli_lists_the_current_run_flags() -> None:
    text = DOC.read_text()
    assert render(text) == text, "docs/cli.md is stale: run `python -m pi_core.cli.helpdoc`"


def test_options_help_has_pi_flags() -> None:
    help_text = options_help()
    for flag in ("--print", "--continue", "--resume", "--fork", "--no-session", "--model", "--list-models"):
        assert flag in help_text
