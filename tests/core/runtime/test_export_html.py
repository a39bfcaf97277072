from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pi_core.runtime import system_theme, themes
from pi_core.runtime.export_html import (
    active_branch,
    default_export_path,
    export_file_to_html,
    render_session_html,
)
from pi_core.runtime.themes import setting_theme

HEADER = {"type": "session", "version": 3, "id": "0190-abc", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/p"}


def _entry(entry_id: str, parent: str | None, message: dict[str, object]) -> dict[str, object]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "t", "message": message}


ENTRIES = [
    _entry("a1", None, {"role": "user", "content": "write <b>x</b>", "timestamp": 1}),
    _entry(
        "a2",
        "a1",
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"},
         {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "x"}}],
         "api": "openai-completions", "provider": "p", "model": "m", "stopReason": "toolUse"},
    ),
    _entry("a3", "a2", {"role": "toolResult", "toolCallId": "c1", "toolName": "write",
                        "content": [{"type": "text", "text": "done </script>"}], "isError": False}),
    _entry("b2", "a1", {"role": "assistant", "content": [{"type": "text", "text": "other branch"}],
                        "api": "x", "provider": "p", "model": "m", "stopReason": "stop"}),
    _entry("a4", "a3", {"role": "assistant", "content": [{"type": "text", "text": "all good"}],
                        "api": "x", "provider": "p", "model": "m", "stopReason": "stop"}),
]  # fmt: skip


def test_active_branch_follows_parents_from_the_last_entry() -> None:
    assert [e["id"] for e in active_branch(ENTRIES, None)] == ["a1", "a2", "a3", "a4"]
    assert [e["id"] for e in active_branch(ENTRIES, "b2")] == ["a1", "b2"]


def test_export_file_writes_escaped_self_contained_page(tmp_path: Path) -> None:
    source = tmp_path / "2026_abc.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in [HEADER, *ENTRIES]) + "\n")
    out = export_file_to_html(source, tmp_path / "out.html")
    page = out.read_text()
    assert "write &lt;b&gt;x&lt;/b&gt;" in page and "all good" in page and "hmm" in page
    assert "other branch" not in page.split('<script type="application/json"')[0]
    assert not re.search(r"(src|href)=\"https?:", page)
    embedded = page.split('id="pi-session">')[1].split("</script>")[0]
    assert json.loads(embedded)["header"]["id"] == "0190-abc"


def test_export_file_defaults_to_pi_name_and_rejects_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "s1.jsonl"
    source.write_text(json.dumps(HEADER) + "\n")
    assert export_file_to_html(source) == default_export_path(source) == Path("pi-session-s1.html")
    assert (tmp_path / "pi-session-s1.html").exists()
    with pytest.raises(FileNotFoundError, match=r"File not found: nope\.jsonl"):
        export_file_to_html("nope.jsonl")


def test_export_renders_the_recorded_prompt_and_its_updates(tmp_path: Path) -> None:
    """pi 1.6.0 sessions record the prompt as system messages: the first shows the prompt and its
    tools, a later one what it changed; one that changes nothing shows no empty box."""
    from pi_core.runtime.export_html import render_session_html

    tool = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
    entries = [
        _entry("s1", None, {"role": "system", "content": "", "timestamp": 1, "toolsAdded": [tool],
                            "sections": {"preamble": "You help with <code>.", "cwd": "cwd: /p"}}),
        _entry("u1", "s1", {"role": "user", "content": "hi", "timestamp": 2}),
        _entry("s2", "u1", {"role": "system", "content": "", "timestamp": 3, "sections": {"cwd": None},
                            "toolsAdded": [{**tool, "name": "bash"}], "toolsRemoved": [{"name": "read"}]}),
        _entry("s3", "s2", {"role": "system", "content": "", "timestamp": 4}),
    ]  # fmt: skip
    page = render_session_html(HEADER, entries, system_prompt="LIVE PROMPT").split("<script")[0]
    assert "LIVE PROMPT" not in page  # the recorded prompt is shown, not today's
    assert page.count('class="entry system"') == 2
    assert "You help with &lt;code&gt;." in page and "cwd: /p" in page and "tools: read" in page
    assert "system prompt update: -cwd, tools +bash -read" in page
    assert "tools added: bash" in page and "tools removed: read" in page
    # a file without recorded prompts still shows the live one
    assert "LIVE PROMPT" in render_session_html(HEADER, ENTRIES, system_prompt="LIVE PROMPT")


FIXTURES = Path(__file__).parents[2] / "fixtures" / "pi16_colors"
EXPORT_COLOURS = json.loads((FIXTURES / "export_colors.json").read_text(encoding="utf-8"))
_SYSTEM = json.loads((FIXTURES / "system_theme.json").read_text(encoding="utf-8"))
_FRAPPE = next(case["input"] for case in _SYSTEM["cases"] if case["name"] == "catppuccinFrappe")
FRAPPE = system_theme.Reported(
    (_FRAPPE["foreground"]["r"], _FRAPPE["foreground"]["g"], _FRAPPE["foreground"]["b"]),
    (_FRAPPE["background"]["r"], _FRAPPE["background"]["g"], _FRAPPE["background"]["b"]),
    tuple((colour["r"], colour["g"], colour["b"]) for colour in _FRAPPE["palette"]),
)


@pytest.mark.parametrize("page", list(EXPORT_COLOURS["pages"]))
def test_the_page_declares_the_colours_pis_export_declares_for_the_theme(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pi 1.6.0's page for the same theme (tests/fixtures/pi16_colors/make_export_colors.mjs):
    every role, and the export backgrounds — the file's own, or derived from userMessageBg."""
    monkeypatch.delenv("COLORFGBG", raising=False)
    want = EXPORT_COLOURS["pages"][page]
    system_theme.reset()
    if want["terminal"] == "frappe":
        system_theme.report(FRAPPE)
    try:
        for name, spec in EXPORT_COLOURS["themes"].items():
            (tmp_path / f"{name}.json").write_text(json.dumps(spec), encoding="utf-8")
        theme = themes.load(want["theme"], [str(tmp_path)], "truecolor")
        page_html = render_session_html(HEADER, ENTRIES, theme=theme)
    finally:
        system_theme.reset()
    root = re.search(r"<style>:root\{([^}]*)\}", page_html)
    assert root is not None
    declared = dict(re.findall(r"--([\w-]+):([^;]+);", root[1]))
    assert declared == want["variables"]
    assert "background:var(--body-bg)" in page_html and "background:var(--userMessageBg)" in page_html


def test_each_export_takes_its_theme_as_pi_s_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RPC's export: the theme setting when it names a theme, else system (a pair is not one);
    ``pi --export``: system, the terminal silent."""
    monkeypatch.delenv("COLORFGBG", raising=False)
    system_theme.reset()
    assert setting_theme("light", tmp_path).name == "light"
    assert setting_theme("light/dark", tmp_path).name == "system"
    assert setting_theme("nowhere", tmp_path).name == "system"
    source = tmp_path / "s.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in [HEADER, *ENTRIES]) + "\n", encoding="utf-8")
    page_html = export_file_to_html(source, tmp_path / "out.html").read_text(encoding="utf-8")
    assert (
        f"--exportPageBg:{EXPORT_COLOURS['pages']['systemSilent']['variables']['exportPageBg']};" in page_html
    )
