from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_core.errors import ConfigError
from pi_core.plugins.sources import SettingsReader
from pi_core.plugins.trust import check_project_trust, trust_project, untrust_project, untrusted_message


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".pi" / "extensions" / "pkg").mkdir(parents=True)
    (root / ".pi" / "extensions" / "gate.py").write_text("X = 1\n")
    (root / ".pi" / "extensions" / "pkg" / "__init__.py").write_text("")
    (root / ".pi" / "extensions" / "pkg" / "helper.py").write_text("Y = 2\n")
    return root


def test_project_without_plugin_code_needs_no_trust(tmp_path: Path) -> None:
    check = check_project_trust(tmp_path, tmp_path / "agent")
    assert check.status == "nothing-to-trust" and check.allowed


def test_trust_then_change_then_untrust(project: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    first = check_project_trust(project, agent)
    assert first.status == "untrusted" and not first.allowed
    assert {p.name for p in first.files} == {"gate.py", "__init__.py", "helper.py"}
    assert "pi trust" in untrusted_message(first) and "--no-extensions" in untrusted_message(first)
    trust_project(project, agent)
    stored = json.loads((agent / "trusted-projects.json").read_text())
    assert str(project.resolve()) in stored["projects"]
    assert check_project_trust(project, agent).status == "trusted"
    (project / ".pi" / "extensions" / "pkg" / "helper.py").write_text("Y = 3\n")  # a helper module changed
    changed = check_project_trust(project, agent)
    assert changed.status == "changed" and "changed since you trusted it" in untrusted_message(changed)
    trust_project(project, agent)
    assert untrust_project(project, agent) is True
    assert untrust_project(project, agent) is False
    assert check_project_trust(project, agent).status == "untrusted"


def test_plugins_requested_by_project_settings_need_trust(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".pi").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "tools" / "x.py").write_text("")
    (root / ".pi" / "settings.json").write_text(json.dumps({"extensions": ["../tools/x.py"]}))
    agent = tmp_path / "agent"
    check = check_project_trust(root, agent)
    assert check.status == "untrusted" and [p.name for p in check.files] == ["x.py"]
    trust_project(root, agent)
    (root / ".pi" / "settings.json").write_text(json.dumps({"extensions": ["../tools/x.py", "../tools"]}))
    assert check_project_trust(root, agent).status == "changed"


def test_broken_trust_file_is_a_clear_config_error(project: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "trusted-projects.json").write_text("{not json")
    with pytest.raises(ConfigError, match="Cannot read the trust file"):
        check_project_trust(project, agent)


def test_broken_project_settings_count_as_empty(project: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "x.py").write_text("X = 1\n")
    settings = project / ".pi" / "settings.json"
    settings.write_text('{"extensions": ["../../tools/x.py"],}')
    check = check_project_trust(project, agent)  # no exception: the broken file asks for nothing
    assert {p.name for p in check.files} == {"gate.py", "__init__.py", "helper.py"}
    trust_project(project, agent)
    settings.write_text('{"extensions": ["../../tools/x.py"]}')  # fixed: it now asks for x.py
    fixed = check_project_trust(project, agent)
    assert fixed.status == "changed" and "x.py" in {p.name for p in fixed.files}


def test_trusting_reports_unusable_settings_files(project: Path, tmp_path: Path) -> None:
    (project / ".pi" / "settings.json").write_text('{"extensions": 3}')
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text("[1]")
    read = SettingsReader()
    check = trust_project(project, agent, read)
    assert [str(e) for e in read.errors] == [
        f'{project / ".pi" / "settings.json"}:1:2: "extensions" must be a list of strings',
        f"{agent / 'settings.json'}:1:1: settings must be a JSON object",
    ]
    assert {p.name for p in check.files} == {"gate.py", "__init__.py", "helper.py"}
