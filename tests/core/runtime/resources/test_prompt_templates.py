from __future__ import annotations

import json
from pathlib import Path

import pytest
from _pi_resources_testkit import write
from pi_core.runtime.resources import (
    PromptTemplate,
    expand_prompt_template,
    load_prompt_templates,
    parse_command_args,
    substitute_args,
)

GOLDEN = Path(__file__).parent / "golden"
CAPTURED = json.loads((GOLDEN / "user_messages.json").read_text())
REVIEW = PromptTemplate("rev", "review", "Review $1 and also $@ / ${@:2} / $ARGUMENTS", "/t/rev.md", "<file>")


def test_expansion_matches_pi_capture() -> None:
    assert expand_prompt_template('/rev a.ts "b c" d', [REVIEW]) == CAPTURED["tmpl"]


def test_missing_arguments_expand_to_empty_as_pi() -> None:
    assert expand_prompt_template("/rev", [REVIEW]) == CAPTURED["tmplnone"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('a "b c" d', ["a", "b c", "d"]),
        ("a\t'b \"c' d", ["a", 'b "c', "d"]),
        ('x"y z"w', ["xy zw"]),
        ("  ", []),
        ('"unterminated arg', ["unterminated arg"]),
        ("a\\ b", ["a\\", "b"]),  # no escape characters
        ('""', []),
    ],
)
def test_parse_command_args(text: str, expected: list[str]) -> None:
    assert parse_command_args(text) == expected


@pytest.mark.parametrize(
    ("template", "args", "expected"),
    [
        ("$1|$2|$3", ["a", "b"], "a|b|"),
        ("$0|$10", [str(i) for i in range(1, 11)], "|10"),
        ("${@:2}", ["a", "b", "c"], "b c"),
        ("${@:0}", ["a", "b"], "a b"),
        ("${@:2:1}|${@:5:2}", ["a", "b", "c"], "b|"),
        ("$ARGUMENTS/$@", [], "/"),
        ("{{name}} $ARGS", ["x"], "{{name}} $ARGS"),
        # A positional value is inserted first; JavaScript then interprets $& etc. in the joined args.
        ("$1 $@", ["$@"], "$@ $@"),
        ("[$@]", ["a$&b"], "[a$@b]"),
        ("[$ARGUMENTS]", ["$$"], "[$]"),
    ],
)
def test_substitute_args(template: str, args: list[str], expected: str) -> None:
    assert substitute_args(template, args) == expected


def test_expand_requires_exact_name() -> None:
    assert expand_prompt_template("/Rev a", [REVIEW]) == "/Rev a"
    assert expand_prompt_template("rev a", [REVIEW]) == "rev a"
    assert expand_prompt_template("/revx", [REVIEW]) == "/revx"


def test_load_templates_frontmatter_and_description_fallback(tmp_path: Path) -> None:
    write(tmp_path / "p/a.md", "---\ndescription: Alpha\nargument-hint: <PR-URL>\n---\n\nDo $1\n")
    write(tmp_path / "p/b.md", "\n\n" + "x" * 61 + "\nsecond\n")
    write(tmp_path / "p/c.md", "short first line\n")
    write(tmp_path / "p/sub/nested.md", "not loaded: directories are not recursive")
    write(tmp_path / "p/.dot.md", "an explicit directory keeps dot-files, as pi")
    write(tmp_path / "p/notes.txt", "skipped")
    result = load_prompt_templates([str(tmp_path / "p")], str(tmp_path))
    by_name = {t.name: t for t in result.templates}
    assert sorted(by_name) == [".dot", "a", "b", "c"]
    assert (by_name["a"].description, by_name["a"].argument_hint, by_name["a"].content) == (
        "Alpha",
        "<PR-URL>",
        "Do $1",
    )
    assert by_name["b"].description == "x" * 60 + "..."
    assert by_name["b"].content == "\n\n" + "x" * 61 + "\nsecond\n"  # no frontmatter: body untouched
    assert by_name["c"].description == "short first line"
    assert by_name["c"].argument_hint is None


def test_malformed_frontmatter_template_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / "bad.md", "---\ndescription: [x\n---\nbody")
    write(tmp_path / "good.md", "body")
    result = load_prompt_templates([str(tmp_path)], str(tmp_path))
    assert [t.name for t in result.templates] == ["good"]


def test_duplicate_names_first_wins(tmp_path: Path) -> None:
    first = write(tmp_path / "one/x.md", "first")
    second = write(tmp_path / "two/x.md", "second")
    result = load_prompt_templates(["one", str(second), "missing.md"], str(tmp_path))
    assert [t.content for t in result.templates] == ["first"]
    [collision] = result.diagnostics
    assert collision.message == 'name "/x" collision'
    assert collision.collision is not None and collision.collision.winner_path == str(first)
