"""Theme files (pi's JSON format) and the ``theme`` setting's names, pairs and ``system``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_core.runtime import themes


def complete(name: str, **colors: object) -> dict[str, Any]:
    """A valid theme: every required role, from the built-in dark file, then ``colors``."""
    dark = json.loads((themes.BUILTIN_DIR / "dark.json").read_text(encoding="utf-8"))
    return {**dark, "name": name, "colors": {**dark["colors"], **colors}}


def _write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_theme_file_reads_every_notation_vars_and_terminal_defaults(tmp_path: Path) -> None:
    data = complete(
        "ocean", accent="deep", error=196, muted="", success="#00AA00", warning="oklch(62% 0.1 200)"
    )
    data["vars"] |= {"sea": "okhsl(232 54% 67%)", "deep": "sea"}
    data["appearance"] = "light"
    del data["colors"]["thinkingMax"]
    path = _write(tmp_path / "ocean.json", data)
    theme = themes.read_file(path, "truecolor")
    assert (theme.name, theme.path, theme.appearance) == ("ocean", path, "light")
    assert theme.color("accent") == "#69add0"  # okhsl through two vars
    assert theme.color("error") == "#ff0000" and theme.fg("error", "x") == "\x1b[38;5;196mx\x1b[39m"
    assert theme.color("muted") == "#000000"  # "" is the terminal's colour: light's guess here
    assert theme.fg("muted", "x") == "\x1b[39mx\x1b[39m"
    assert theme.color("success") == "#00aa00"
    assert theme.color("warning") == "#1c989e"
    assert theme.fg("accent", "x") == "\x1b[38;2;105;173;208mx\x1b[39m"
    assert theme.color("thinkingMax") == theme.color("thinkingXhigh")  # an optional role's fallback
    in_256 = themes.read_file(path, "256color")
    assert in_256.fg("accent", "x") == "\x1b[38;5;74mx\x1b[39m" and in_256.shown("accent").hex == "#5fafd7"  # type: ignore[union-attr]


def test_the_appearance_is_judged_from_the_colours_when_not_declared(tmp_path: Path) -> None:
    light = json.loads((themes.BUILTIN_DIR / "light.json").read_text(encoding="utf-8"))
    del light["appearance"]
    path = _write(tmp_path / "pale.json", {**light, "name": "pale"})
    assert themes.read_file(path).appearance == "light"
    assert themes.read_file(_write(tmp_path / "dusk.json", complete("dusk"))).appearance == "dark"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"colors": {"accent": "okhsl(295 150% 67%)"}}, "accent: okhsl saturation must be between 0 and 1"),
        (
            {"colors": {"accent": "a"}, "vars": {"a": "b", "b": "a"}},
            "accent: the var a refers back to itself",
        ),
        ({"colors": {"accent": "nowhere"}}, "'nowhere' is neither a colour nor one of the vars"),
        ({"colors": {"accent": 300}}, "ANSI color index must be an integer from 0 to 255: 300"),
        ({"colors": {"accent": True}}, "colors.accent: True is not a colour"),
        ({"colors": {"accentt": "#fff"}}, "unknown colors: accentt"),
        ({"drop": ["error", "bashMode"]}, "missing colors: error, bashMode"),
        ({"top": {"author": "me"}}, "unknown keys: author"),
        ({"top": {"name": "a/b"}}, 'the name "a/b" contains "/"'),
        ({"top": {"appearance": "grey"}}, 'appearance must be "dark" or "light"'),
        ({"top": {"export": {"pageBg": "#000", "cardBackground": "#111"}}}, "unknown export: cardBackground"),
    ],
)
def test_a_broken_theme_file_is_named_with_its_problem(
    tmp_path: Path, change: dict[str, Any], says: str
) -> None:
    data = complete("bad", **change.get("colors", {}))
    data["vars"] = {**data["vars"], **change.get("vars", {})}
    for role in change.get("drop", []):
        del data["colors"][role]
    data.update(change.get("top", {}))
    path = _write(tmp_path / "bad.json", data)
    with pytest.raises(themes.ThemeError, match=r"bad\.json: ") as raised:
        themes.read_file(path)
    assert says in str(raised.value)
    assert "\n" not in str(raised.value)
    assert themes.problems([path]) == [str(raised.value)]
    assert [info.name for info in themes.available([path])] == ["system", "dark", "light"]  # not listed
    with pytest.raises(themes.ThemeError, match="Theme not found: gone"):
        themes.load("gone", [path])


def test_a_broken_file_of_the_asked_name_says_what_is_wrong(tmp_path: Path) -> None:
    path = _write(tmp_path / "rusty.json", {"name": "rusty", "colors": {}})
    with pytest.raises(themes.ThemeError, match=r"rusty\.json: invalid theme: missing colors: accent"):
        themes.load("rusty", [path])
    (tmp_path / "junk.json").write_text("{not json")
    assert "junk.json: the theme is not valid JSON" in themes.problems([str(tmp_path / "junk.json")])[0]


def test_the_setting_picks_from_a_pair_by_the_terminal_background() -> None:
    light, dark = {"COLORFGBG": "0;15"}, {"COLORFGBG": "15;0"}
    assert themes.resolve_setting("sun/moon", light) == "sun"
    assert themes.resolve_setting("sun/moon", dark) == "moon"
    assert themes.resolve_setting("sun/moon", {}) == "moon"
    assert (
        themes.resolve_setting(None, light) == "system" and themes.resolve_setting("system", dark) == "system"
    )
    assert themes.resolve_setting("ocean", light) == "ocean"
    assert themes.resolve_setting("a/b/c", light) == "system"  # not a pair: the default
    assert themes.resolve_setting("x", {"COLORFGBG": "default;8"}) == "x"
    assert not themes.terminal_is_light({"COLORFGBG": "0;8"}) and themes.terminal_is_light(
        {"COLORFGBG": "0;default;7"}
    )


def test_every_theme_is_listed_system_first_then_by_name(tmp_path: Path) -> None:
    files = [
        _write(tmp_path / "z.json", complete("zebra")),
        _write(tmp_path / "a.json", complete("amber")),
        _write(tmp_path / "again.json", complete("amber", accent="#fff")),  # the first wins
        _write(tmp_path / "dark.json", complete("dark")),  # built-in names are taken
    ]
    (tmp_path / "junk.json").write_text("{not json")
    listed = themes.available([*files, str(tmp_path / "junk.json")])
    assert [(info.name, info.path) for info in listed] == [
        ("system", None),
        ("amber", files[1]),
        ("dark", None),
        ("light", None),
        ("zebra", files[0]),
    ]
    assert themes.load("amber", files).color("accent") == themes.Theme("dark").color("accent")
