from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _pi_resources_testkit import write
from pi_core.runtime.resources import Settings, SettingsError, SettingsManager, deep_merge_settings
from pi_core.runtime.resources.settings import migrate_settings, parse_settings_text


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def manager(project: Path, agent_dir: Path) -> SettingsManager:
    return SettingsManager.create(project, agent_dir)


def test_settings_defaults_are_pis(project: Path, agent_dir: Path) -> None:
    settings = manager(project, agent_dir).settings
    assert settings.steering_mode == "one-at-a-time"
    assert settings.transport == "auto"
    assert settings.compaction.reserve_tokens == 16384
    assert settings.compaction.keep_recent_tokens == 20000
    assert settings.retry.max_retries == 3
    assert settings.retry.base_delay_ms == 2000
    assert settings.retry.provider.max_retry_delay_ms == 60000
    assert settings.images.auto_resize is True
    assert settings.enable_skill_commands is True
    assert settings.markdown.code_block_indent == "  "
    assert settings.terminal.image_width_cells == 60


def test_settings_uses_camel_case_and_keeps_unknown_keys() -> None:
    settings = Settings.model_validate({"defaultModel": "m", "editorPaddingX": 2, "myPlugin": {"a": 1}})
    assert settings.default_model == "m"
    assert settings.editor_padding_x == 2
    assert settings.extra_keys() == {"myPlugin": {"a": 1}}
    assert settings.to_json_dict()["myPlugin"] == {"a": 1}


def test_project_overrides_global_merging_objects_one_level(project: Path, agent_dir: Path) -> None:
    write(
        agent_dir / "settings.json",
        json.dumps(
            {
                "theme": "light",
                "skills": ["a"],
                "compaction": {"enabled": False, "reserveTokens": 5},
                "retry": {"provider": {"timeoutMs": 1, "maxRetries": 2}},
            }
        ),
    )
    write(
        project / ".pi/settings.json",
        json.dumps(
            {"skills": ["b"], "compaction": {"keepRecentTokens": 7}, "retry": {"provider": {"maxRetries": 9}}}
        ),
    )
    merged = manager(project, agent_dir).merged()
    assert merged["theme"] == "light"
    assert merged["skills"] == ["b"]  # arrays are replaced, not concatenated
    assert merged["compaction"] == {"enabled": False, "reserveTokens": 5, "keepRecentTokens": 7}
    # pi merges one level deep: the nested provider object is replaced as a whole
    assert merged["retry"] == {"provider": {"maxRetries": 9}}


def test_deep_merge_settings_replaces_when_types_differ() -> None:
    assert deep_merge_settings({"a": {"x": 1}}, {"a": [1]}) == {"a": [1]}
    assert deep_merge_settings({"a": 1}, {"a": {"x": 1}}) == {"a": {"x": 1}}


def test_legacy_keys_are_migrated() -> None:
    migrated = migrate_settings(
        {
            "queueMode": "all",
            "websockets": True,
            "skills": {"enableSkillCommands": False, "customDirectories": ["~/s"]},
            "retry": {"maxDelayMs": 5},
        }
    )
    assert migrated == {
        "steeringMode": "all",
        "transport": "websocket",
        "skills": ["~/s"],
        "enableSkillCommands": False,
        "retry": {"provider": {"maxRetryDelayMs": 5}},
    }
    assert migrate_settings({"skills": {"customDirectories": []}}) == {}


def test_invalid_json_names_file_line_and_column_and_uses_defaults(project: Path, agent_dir: Path) -> None:
    path = write(agent_dir / "settings.json", '{\n  "theme": "dark",\n  "foo": [1,\n}\n')
    write(project / ".pi/settings.json", '{"theme": "light"}')
    settings_manager = manager(project, agent_dir)
    [error] = settings_manager.drain_errors()
    assert error.scope == "global"
    assert error.error.path == str(path)
    assert (error.error.line, error.error.column) == (4, 1)
    assert str(error.error).startswith(f"{path}:4:1: invalid JSON")
    assert str(error).startswith("(global settings) ")
    assert settings_manager.settings.theme == "light"
    assert settings_manager.drain_errors() == []


def test_wrong_value_type_is_reported_at_its_key(project: Path, agent_dir: Path) -> None:
    path = write(project / ".pi/settings.json", '{\n  "retry": {\n    "maxRetries": "three"\n  }\n}')
    [error] = manager(project, agent_dir).errors
    assert error.scope == "project"
    assert error.error.path == str(path)
    assert (error.error.line, error.error.column) == (3, 5)
    assert "retry.maxRetries" in error.error.reason


def test_non_object_settings_file_is_an_error() -> None:
    with pytest.raises(SettingsError, match=r"x.json:1:1: settings must be a JSON object"):
        parse_settings_text("[1, 2]", "x.json")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_settings_file_is_reported(project: Path, agent_dir: Path) -> None:
    path = write(agent_dir / "settings.json", "{}")
    path.chmod(0)
    [error] = manager(project, agent_dir).errors
    assert error.error.path == str(path)
    assert "cannot read settings" in error.error.reason


def test_undecodable_settings_file_loads_as_pi_reads_it(
    project: Path, agent_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Bytes that are not UTF-8 read as U+FFFD (JavaScript's reading), reported once with file,
    line and column; the rest of the file applies."""
    path = agent_dir / "settings.json"
    path.write_bytes(b'{"steeringMode": "one-at-a-time",\n "theme": "\xff"}')
    settings_manager = manager(project, agent_dir)
    assert settings_manager.errors == []
    assert settings_manager.settings.theme == "\ufffd"
    assert settings_manager.settings.steering_mode == "one-at-a-time"
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}:2:12: not valid UTF-8; read with U+FFFD in place of the bad bytes"
    ]


def test_settings_file_with_a_byte_order_mark_loads(project: Path, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_bytes(b'\xef\xbb\xbf{"theme": "light"}')
    settings_manager = manager(project, agent_dir)
    assert settings_manager.errors == [] and settings_manager.settings.theme == "light"


def test_settings_nested_too_deeply_is_an_error_not_a_crash(project: Path, agent_dir: Path) -> None:
    path = agent_dir / "settings.json"
    path.write_text('{"theme": ' + "[" * 100_000 + "]" * 100_000 + "}")
    [error] = manager(project, agent_dir).errors
    assert str(error.error) == f"{path}:1:1: invalid JSON: nested too deeply to read"


def test_set_writes_only_the_changed_key_and_keeps_unknown_keys(project: Path, agent_dir: Path) -> None:
    path = write(agent_dir / "settings.json", json.dumps({"zUnknown": [1, {"b": 2}], "theme": "dark"}))
    settings_manager = manager(project, agent_dir)
    # Someone else edits the file meanwhile: their change must survive our write.
    path.write_text(json.dumps({"zUnknown": [1, {"b": 2}], "theme": "dark", "other": True}))
    settings_manager.set("defaultModel", "m1")
    settings_manager.set("compaction.enabled", False)
    assert path.read_text() == json.dumps(
        {
            "zUnknown": [1, {"b": 2}],
            "theme": "dark",
            "other": True,
            "defaultModel": "m1",
            "compaction": {"enabled": False},
        },
        indent=2,
    )
    assert settings_manager.settings.compaction.enabled is False
    assert not (agent_dir / "settings.json.lock").exists()


def test_set_nested_key_merges_into_existing_object(project: Path, agent_dir: Path) -> None:
    path = write(agent_dir / "settings.json", json.dumps({"retry": {"maxRetries": 5}}))
    settings_manager = manager(project, agent_dir)
    settings_manager.set("retry.enabled", False)
    assert json.loads(path.read_text()) == {"retry": {"maxRetries": 5, "enabled": False}}
    settings_manager.set("retry.enabled", None)
    assert json.loads(path.read_text()) == {"retry": {"maxRetries": 5}}


def test_set_project_scope_creates_the_project_file(project: Path, agent_dir: Path) -> None:
    settings_manager = manager(project, agent_dir)
    settings_manager.set("skills", ["./s"], scope="project")
    assert json.loads((project / ".pi/settings.json").read_text()) == {"skills": ["./s"]}
    assert not (agent_dir / "settings.json").exists()


def test_file_that_failed_to_load_is_never_overwritten(project: Path, agent_dir: Path) -> None:
    broken = '{"theme": '
    path = write(agent_dir / "settings.json", broken)
    settings_manager = manager(project, agent_dir)
    settings_manager.set("theme", "light")
    assert path.read_text() == broken
    assert settings_manager.settings.theme == "light"  # still applies for this run


def test_reload_picks_up_fixed_file(project: Path, agent_dir: Path) -> None:
    path = write(agent_dir / "settings.json", "{")
    settings_manager = manager(project, agent_dir)
    path.write_text('{"theme": "x"}')
    settings_manager.reload()
    assert settings_manager.settings.theme == "x"
    settings_manager.set("quietStartup", True)
    assert json.loads(path.read_text()) == {"theme": "x", "quietStartup": True}


def test_stale_lock_is_taken_over(project: Path, agent_dir: Path) -> None:
    path = write(agent_dir / "settings.json", "{}")
    lock = agent_dir / "settings.json.lock"
    lock.mkdir()
    os.utime(lock, (0, 0))
    settings_manager = manager(project, agent_dir)
    settings_manager.set("theme", "t")
    assert json.loads(path.read_text()) == {"theme": "t"}
    assert settings_manager.errors == []


def test_held_lock_reports_an_error(project: Path, agent_dir: Path) -> None:
    write(agent_dir / "settings.json", "{}")
    (agent_dir / "settings.json.lock").mkdir()
    settings_manager = manager(project, agent_dir)
    settings_manager.set("theme", "t")
    [error] = settings_manager.errors
    assert "locked" in str(error)


def test_agent_dir_defaults_to_env(project: Path, agent_dir: Path) -> None:
    write(agent_dir / "settings.json", '{"theme": "from-env"}')
    assert SettingsManager.create(project).settings.theme == "from-env"


def test_in_memory_manager_and_overrides() -> None:
    settings_manager = SettingsManager.in_memory({"queueMode": "all"})
    assert settings_manager.settings.steering_mode == "all"
    settings_manager.apply_overrides({"compaction": {"enabled": False}})
    settings_manager.set("theme", "t")
    assert settings_manager.settings.theme == "t"
    assert settings_manager.settings.compaction.enabled is False
    assert settings_manager.global_settings() == {"steeringMode": "all", "theme": "t"}


def test_settings_path_that_is_a_directory_is_reported(project: Path, agent_dir: Path) -> None:
    (agent_dir / "settings.json").mkdir()
    settings_manager = manager(project, agent_dir)
    [error] = settings_manager.errors
    assert error.error.path == str(agent_dir / "settings.json")
    assert error.error.reason.startswith("cannot read settings")
    assert settings_manager.settings == Settings()


def test_set_rejects_invalid_values_and_changes_nothing(project: Path, agent_dir: Path) -> None:
    path = write(agent_dir / "settings.json", '{"theme": "dark"}')
    settings_manager = manager(project, agent_dir)
    with pytest.raises(SettingsError, match=r"invalid value for steeringMode"):
        settings_manager.set("steeringMode", "sometimes")
    with pytest.raises(SettingsError, match=r"invalid value for compaction\.enabled"):
        settings_manager.set("compaction.enabled", "maybe")
    assert path.read_text() == '{"theme": "dark"}'
    assert settings_manager.settings.steering_mode == "one-at-a-time"


def test_typed_view_is_cached_until_a_change(project: Path, agent_dir: Path) -> None:
    settings_manager = manager(project, agent_dir)
    first = settings_manager.settings
    assert settings_manager.settings is first
    settings_manager.set("theme", "t")
    assert settings_manager.settings is not first
    assert settings_manager.settings.theme == "t"
    with pytest.raises(ValueError, match="hideThinkingBlock"):
        settings_manager.apply_overrides({"hideThinkingBlock": "nope"})
    assert settings_manager.settings.hide_thinking_block is False


def test_every_documented_key_is_a_field_not_an_extra() -> None:
    """Every key of pi's settings.md lands in a typed field (a wrong alias would make it an extra)."""
    data = {
        "defaultProvider": "p",
        "defaultModel": "m",
        "defaultThinkingLevel": "high",
        "hideThinkingBlock": True,
        "thinkingBudgets": {"minimal": 1, "low": 2, "medium": 3, "high": 4},
        "transport": "sse",
        "steeringMode": "all",
        "followUpMode": "all",
        "theme": "light",
        "quietStartup": True,
        "tuiMode": "regular",
        "fullscreenExitOutput": "resume-hint",
        "fullscreenCopyOnSelect": False,
        "collapseChangelog": True,
        "enableInstallTelemetry": False,
        "doubleEscapeAction": "fork",
        "treeFilterMode": "no-tools",
        "editorPaddingX": 3,
        "autocompleteMaxVisible": 20,
        "showHardwareCursor": True,
        "warnings": {"anthropicExtraUsage": False},
        "compaction": {"enabled": False, "reserveTokens": 1, "keepRecentTokens": 2},
        "branchSummary": {"reserveTokens": 3, "skipPrompt": True},
        "retry": {
            "enabled": False,
            "maxRetries": 1,
            "baseDelayMs": 2,
            "maxAgentDelayMs": 6,
            "provider": {"timeoutMs": 3, "maxRetries": 4, "maxRetryDelayMs": 5},
        },
        "terminal": {
            "showImages": False,
            "imageWidthCells": 9,
            "clearOnShrink": True,
            "showTerminalProgress": True,
        },
        "images": {"autoResize": False, "blockImages": True},
        "shellPath": "/bin/zsh",
        "shellCommandPrefix": "set -e",
        "npmCommand": ["pnpm"],
        "externalEditor": "code --wait",
        "sessionDir": "~/s",
        "enabledModels": ["a*"],
        "markdown": {"codeBlockIndent": "    "},
        "packages": ["npm:x", {"source": "git:h/o/r", "skills": []}],
        "extensions": ["e"],
        "skills": ["s"],
        "prompts": ["p"],
        "themes": ["t"],
        "enableSkillCommands": False,
        "lastChangelogVersion": "0.73.1",
        "httpIdleTimeoutMs": 120000,
    }
    settings = Settings.model_validate(data)
    assert settings.extra_keys() == {}
    assert settings.model_dump(mode="json", by_alias=True, exclude_none=True) == data


def test_provider_timeout_defaults_to_pis_http_idle_timeout() -> None:
    """A stalled stream ends after pi 1.6.0's 300 s in every dialect, not the SDKs' 600 s."""
    assert Settings().retry.provider.timeout_ms == 300000
    assert Settings.model_validate({"httpIdleTimeoutMs": 5000}).retry.provider.timeout_ms == 5000
    for off in ("disabled", 0):
        assert Settings.model_validate({"httpIdleTimeoutMs": off}).retry.provider.timeout_ms is None
    both = {"httpIdleTimeoutMs": 5000, "retry": {"provider": {"timeoutMs": 700}}}
    assert Settings.model_validate(both).retry.provider.timeout_ms == 700


def test_env_fallbacks_for_terminal_flags() -> None:
    assert Settings().hardware_cursor_enabled({"PI_HARDWARE_CURSOR": "1"}) is True
    assert Settings().hardware_cursor_enabled({}) is False
    assert Settings(show_hardware_cursor=False).hardware_cursor_enabled({"PI_HARDWARE_CURSOR": "1"}) is False
    assert Settings().clear_on_shrink_enabled({"PI_CLEAR_ON_SHRINK": "1"}) is True
    explicit = Settings.model_validate({"terminal": {"clearOnShrink": False}})
    assert explicit.clear_on_shrink_enabled({"PI_CLEAR_ON_SHRINK": "1"}) is False


def test_a_full_disk_while_saving_leaves_the_old_file_whole(
    project: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import io

    settings_file = agent_dir / "settings.json"
    settings_file.write_text(json.dumps({"theme": "dark", "steeringMode": "all"}, indent=2))
    settings = manager(project, agent_dir)
    real_fdopen = os.fdopen

    class FullDisk(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd: int, *args: object, **kwargs: object) -> object:
        os.close(fd)
        return FullDisk()

    monkeypatch.setattr(os, "fdopen", fdopen)
    settings.set("theme", "light")
    monkeypatch.setattr(os, "fdopen", real_fdopen)
    assert json.loads(settings_file.read_text()) == {"theme": "dark", "steeringMode": "all"}
    assert [p.name for p in agent_dir.iterdir() if p.name.endswith(".tmp")] == []
    [problem] = settings.drain_errors()
    assert "cannot write settings: No space left on device" in str(problem)


def test_a_symlinked_settings_file_stays_a_link(project: Path, agent_dir: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "pi-settings.json"
    real.write_text(json.dumps({"theme": "dark"}))
    (agent_dir / "settings.json").symlink_to(real)
    manager(project, agent_dir).set("steeringMode", "all")
    assert (agent_dir / "settings.json").is_symlink()
    assert json.loads(real.read_text()) == {"theme": "dark", "steeringMode": "all"}
