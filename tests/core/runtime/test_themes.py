"""Theme files (pi's JSON format) and the ``theme`` setting's names, pairs and ``system``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_core.runtime import themes
from pi_core.runtime.ui import THEMES


def _write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_theme_file_reads_hex_indexes_vars_and_terminal_defaults(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "ocean.json",
        {
            "name": "ocean",
            "appearance": "light",
            "vars": {"sea": "#08f", "deep": "sea"},
            "colors": {"accent": "deep", "error": 196, "muted": "", "success": "#00AA00"},
        },
    )
    theme = themes.load_file(path)
    assert (theme.name, theme.path) == ("ocean", path)
    assert theme.color("accent") == "#0088ff"
    assert theme.color("error") == "#ff0000"
    assert theme.color("muted") == THEMES["light"]["muted"]  # "" is the terminal's: light's here
    assert theme.color("success") == "#00aa00"
    assert theme.color("warning") == THEMES["light"]["warning"]  # roles it leaves out
    assert theme.fg("accent", "x") == "\x1b[38;2;0;136;255mx\x1b[39m"


@pytest.mark.parametrize(
    ("colors", "vars_", "says"),
    [
        ({"accent": "okhsl(295 50% 67%)"}, {}, "'okhsl(295 50% 67%)' is not a colour"),
        ({"accent": "a"}, {"a": "b", "b": "a"}, "refers back to itself"),
        ({"accent": 300}, {}, "300 is not a 256-colour index"),
        ({"accent": True}, {}, "True is not a colour"),
    ],
)
def test_a_broken_theme_file_is_named_with_its_problem(
    tmp_path: Path, colors: dict[str, object], vars_: dict[str, object], says: str
) -> None:
    path = _write(tmp_path / "bad.json", {"name": "bad", "vars": vars_, "colors": colors})
    with pytest.raises(themes.ThemeError, match=r"bad\.json: accent") as raised:
        themes.load_file(path)
    assert says in str(raised.value)
    with pytest.raises(themes.ThemeError, match="Theme not found: gone"):
        themes.load("gone", [path])


def test_the_setting_picks_from_a_pair_by_the_terminal_background() -> None:
    light, dark = {"COLORFGBG": "0;15"}, {"COLORFGBG": "15;0"}
    assert themes.resolve_setting("sun/moon", light) == "sun"
    assert themes.resolve_setting("sun/moon", dark) == "moon"
    assert themes.resolve_setting("sun/moon", {}) == "moon"
    assert themes.resolve_setting(None, light) == "light" and themes.resolve_setting("system", dark) == "dark"
    assert themes.resolve_setting("ocean", light) == "ocean"


def test_every_theme_is_listed_system_first_then_by_name(tmp_path: Path) -> None:
    files = [
        _write(tmp_path / "z.json", {"name": "zebra", "colors": {}}),
        _write(tmp_path / "a.json", {"name": "amber", "colors": {}}),
        _write(tmp_path / "again.json", {"name": "amber", "colors": {"accent": "#fff"}}),  # first wins
        _write(tmp_path / "dark.json", {"name": "dark", "colors": {}}),  # built-in names are taken
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
