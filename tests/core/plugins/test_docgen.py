from __future__ import annotations

from pathlib import Path

from pi_core.plugins import docgen

HOOKS_MD = Path(__file__).resolve().parents[3] / "docs" / "hooks.md"


def test_docs_hooks_md_is_up_to_date() -> None:
    assert HOOKS_MD.read_text(encoding="utf-8") == docgen.render(), (
        "docs/hooks.md is stale; run: uv run python -m pi_core.plugins.docgen"
    )


def test_check_mode_fails_on_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "hooks.md"
    stale.write_text("old\n")
    assert docgen.main([str(stale), "--check"]) == 1
    assert docgen.main([str(stale)]) == 0
    assert docgen.main([str(stale), "--check"]) == 0


def test_every_hook_has_a_section() -> None:
    text = docgen.render()
    from pi_core.plugins.combine import EVENT_HOOKS

    for name in EVENT_HOOKS:
        assert f"\n## {name}\n" in text
