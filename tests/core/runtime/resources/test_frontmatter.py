from __future__ import annotations

import pytest
from pi_core.runtime.resources import FrontmatterError, parse_frontmatter
from pi_core.runtime.resources.frontmatter import strip_frontmatter


def test_frontmatter_and_trimmed_body() -> None:
    parsed = parse_frontmatter("---\nname: x\ndescription: d\n---\n\n  body\n\n")
    assert parsed.data == {"name": "x", "description": "d"}
    assert parsed.body == "body"


def test_without_frontmatter_text_is_unchanged_but_newlines_normalised() -> None:
    assert parse_frontmatter("hello\r\nworld\r\n").body == "hello\nworld\n"
    assert parse_frontmatter("---\nno closing line").data == {}


def test_crlf_files_are_parsed() -> None:
    parsed = parse_frontmatter("---\r\ndescription: d\r\n---\r\nbody\r\n")
    assert parsed.data == {"description": "d"}
    assert parsed.body == "body"


def test_empty_block() -> None:
    assert parse_frontmatter("---\n---\nbody").data == {}
    assert parse_frontmatter("---\n# only a comment\n---\nbody").data == {}


def test_yaml_1_2_scalars() -> None:
    data = parse_frontmatter(
        "---\na: yes\nb: 2024-01-01\nc: true\nd: 010\ne: 0x1f\nf: 1.5\ng: ~\nh: 'true'\n---\n"
    ).data
    assert data == {
        "a": "yes",
        "b": "2024-01-01",
        "c": True,
        "d": 10,
        "e": 31,
        "f": 1.5,
        "g": None,
        "h": "true",
    }


def test_malformed_yaml_names_line_and_column() -> None:
    with pytest.raises(FrontmatterError, match=r"invalid frontmatter: .* at line 4, column 6"):
        parse_frontmatter("---\nname: x\ndescription: [unclosed\nother: 1\n---\nbody")


def test_non_mapping_frontmatter_is_an_error() -> None:
    with pytest.raises(FrontmatterError, match="must be a mapping"):
        parse_frontmatter("---\n- a\n- b\n---\n")


def test_strip_frontmatter() -> None:
    assert strip_frontmatter("---\na: 1\n---\nbody\n") == "body"
