from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from pi_core.errors import PluginLoadError, PluginValidationError
from pi_core.plugins.manager import LoadOptions, PiPluginManager, load_plugins, pi_entry_points
from pi_core.plugins.trust import trust_project
from pi_core.testing.plugins import fake_distribution

HOOK = "from pi_core import hookimpl\n\n@hookimpl\ndef agent_start(event, ctx):\n    pass\n"


def write(path: Path, text: str = HOOK) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    agent = tmp_path / "agent"
    project.mkdir()
    agent.mkdir()
    return project, agent


def load(project: Path, agent: Path, **kwargs: object) -> PiPluginManager:
    # pi-coding-agent-core's own built-ins are left out so each test sees only the plugins it wrote.
    options = LoadOptions(
        cwd=project, agent_dir=agent, entry_points=False, env={}, trust_project=True, builtin_modules=()
    )
    for key, value in kwargs.items():
        setattr(options, key, value)
    return load_plugins(options)


def active(pm: PiPluginManager) -> list[str]:
    return [name for name, _ in pm.plugins_in_load_order()]


def test_load_order_follows_spec_ranks(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    project, agent = dirs
    write(tmp_path / "cli_ext.py")
    write(project / "listed" / "proj_listed.py")
    write(project / ".pi" / "settings.json", json.dumps({"extensions": ["../listed/proj_listed.py"]}))
    write(project / ".pi" / "extensions" / "proj_b.py")
    write(project / ".pi" / "extensions" / "proj_a.py")
    write(project / ".pi" / "extensions" / "proj_pkg" / "__init__.py")
    write(agent / "mine" / "glob_listed.py")
    write(agent / "settings.json", json.dumps({"extensions": ["mine/glob_listed.py"]}))
    write(agent / "extensions" / "glob_auto.py")
    pm = load(project, agent, extension_paths=[str(tmp_path / "cli_ext.py")])
    assert pm.load_errors == []
    assert active(pm) == [
        "cli_ext",
        "proj_listed",
        "proj_a",
        "proj_b",
        "proj_pkg",
        "glob_listed",
        "glob_auto",
    ]
    assert [r.source for r in pm.records.values()] == [
        "flag",
        "project settings",
        "project",
        "project",
        "project",
        "global settings",
        "global",
    ]


def test_same_path_twice_loads_once_at_first_place(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    ext = write(project / ".pi" / "extensions" / "only.py")
    pm = load(project, agent, extension_paths=[str(ext)])
    assert active(pm) == ["only"] and pm.records["only"].source == "flag"
    assert pm.load_errors == []


def test_settings_patterns_exclude_auto_discovered(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    write(project / ".pi" / "extensions" / "keep.py")
    write(project / ".pi" / "extensions" / "skip_me.py")
    write(project / ".pi" / "extensions" / "drop.py")
    settings = {"extensions": ["!skip_*", "-extensions/drop.py"]}
    write(project / ".pi" / "settings.json", json.dumps(settings))
    assert active(load(project, agent)) == ["keep"]


def test_no_extensions_keeps_only_e_paths(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    project, agent = dirs
    write(project / ".pi" / "extensions" / "proj.py")
    write(agent / "extensions" / "glob.py")
    explicit = write(tmp_path / "explicit.py")
    pm = load(project, agent, extension_paths=[str(explicit)], no_extensions=True)
    assert active(pm) == ["explicit"]


def test_missing_e_path_is_a_load_error(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    pm = load(project, agent, extension_paths=["nope.py"])
    [error] = pm.load_errors
    assert "does not exist" in error.problem and "drop the -e/--extension option" in str(error)


def test_blocked_by_settings_and_env_never_imports(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    project, agent = dirs
    marker = tmp_path / "imported"
    write(project / ".pi" / "extensions" / "noisy.py", f"open({str(marker)!r}, 'w').close()\n")
    write(project / ".pi" / "extensions" / "envblocked.py")
    write(project / ".pi" / "extensions" / "fine.py")
    write(agent / "settings.json", json.dumps({"disabledPlugins": ["noisy"]}))
    pm = load(project, agent, env={"PI_DISABLED_PLUGINS": "envblocked, other"})
    assert active(pm) == ["fine"]
    assert pm.records["noisy"].status == "blocked" and pm.records["envblocked"].status == "blocked"
    assert not marker.exists()


def test_broken_settings_file_is_reported_once_and_its_lists_ignored(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    write(project / ".pi" / "extensions" / "kept.py")
    write(agent / "extensions" / "noisy.py")
    settings = write(agent / "settings.json", '{\n  "disabledPlugins": ["noisy"\n}')
    pm = load(project, agent)
    assert active(pm) == ["kept", "noisy"]  # the broken file blocks nothing
    assert not pm.load_errors
    (error,) = pm.settings_errors  # read by both the blocker and the discovery, reported once
    assert (error.path, error.line, error.column) == (str(settings), 3, 1)
    assert str(error).startswith(f"{settings}:3:1: invalid JSON")


def test_settings_error_type_is_the_runtime_one(dirs: tuple[Path, Path]) -> None:
    from pi_core.runtime.resources import SettingsError, SettingsManager  # the runtime's own names

    project, agent = dirs
    write(project / ".pi" / "settings.json", '{"extensions": [,]}')
    (error,) = load(project, agent).settings_errors
    assert isinstance(error, SettingsError)
    (runtime_error,) = SettingsManager.create(project, agent).drain_errors()
    assert str(runtime_error.error) == str(error)


def test_duplicate_names_are_refused_with_both_named(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    write(project / ".pi" / "extensions" / "twin.py")
    write(agent / "extensions" / "twin.py")
    pm = load(project, agent)
    assert active(pm) == ["twin"]
    [error] = pm.load_errors
    assert error.source == "global"
    assert "already loaded from project" in error.problem and str(project) in error.problem


def test_syntax_error_is_isolated_with_file_and_line(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    bad = write(project / ".pi" / "extensions" / "bad.py", "def oops(:\n    pass\n")
    write(project / ".pi" / "extensions" / "good.py")
    pm = load(project, agent)
    assert active(pm) == ["good"]
    [error] = pm.load_errors
    assert isinstance(error, PluginLoadError)
    assert error.plugin == "bad" and f"syntax error in {bad} line 1" in error.problem
    message = str(error)
    assert "'bad'" in message and str(bad) in message and "disabledPlugins" in message
    assert "--no-extensions" in message and pm.records["bad"].status == "failed"


def test_exception_at_import_is_isolated(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    write(project / ".pi" / "extensions" / "raises.py", "raise RuntimeError('boom at import')\n")
    pm = load(project, agent)
    [error] = pm.load_errors
    assert error.problem == "RuntimeError while importing: boom at import"
    assert isinstance(error.__cause__, RuntimeError)


def test_misspelled_hook_is_refused_with_suggestion(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    path = write(
        project / ".pi" / "extensions" / "typo.py",
        "from pi_core import hookimpl\n\n@hookimpl\ndef tool_cal(event, ctx):\n    pass\n",
    )
    pm = load(project, agent)
    [error] = pm.load_errors
    assert isinstance(error, PluginValidationError)
    assert "'tool_cal' is not a pi hook (did you mean 'tool_call'?)" in error.problem
    assert f"{path}:3" in error.problem
    assert pm.get_plugin("typo") is None


def test_unknown_argument_is_refused(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    write(
        project / ".pi" / "extensions" / "args.py",
        "from pi_core import hookimpl\n\n@hookimpl\ndef tool_call(event, context):\n    pass\n",
    )
    pm = load(project, agent)
    [error] = pm.load_errors
    assert isinstance(error, PluginValidationError) and "context" in error.problem
    assert pm.get_plugin("args") is None


def test_wrapper_implementations_are_refused(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    write(
        project / ".pi" / "extensions" / "wrap.py",
        "from pi_core import hookimpl\n\n@hookimpl(wrapper=True)\n"
        "def tool_call(event, ctx):\n    return (yield)\n",
    )
    pm = load(project, agent)
    [error] = pm.load_errors
    assert "is a wrapper" in error.problem


def test_untrusted_project_code_is_skipped_until_trusted(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    ext = write(project / ".pi" / "extensions" / "proj.py")
    write(agent / "extensions" / "glob.py")
    pm = load(project, agent, trust_project=False)
    assert active(pm) == ["glob"]
    assert pm.records["proj"].status == "untrusted"
    assert pm.untrusted_project is not None and pm.untrusted_project.status == "untrusted"
    trust_project(project, agent)
    assert active(load(project, agent, trust_project=False)) == ["proj", "glob"]
    ext.write_text(HOOK + "# changed\n")
    changed = load(project, agent, trust_project=False)
    assert changed.untrusted_project is not None and changed.untrusted_project.status == "changed"


def test_builtin_modules_load_last(
    dirs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, agent = dirs
    write(tmp_path / "mods" / "pi_test_core_builtin.py")
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    write(project / ".pi" / "extensions" / "proj.py")
    pm = load(project, agent, builtin_modules=("pi_test_core_builtin",))
    assert active(pm) == ["proj", "pi_test_core_builtin"]
    assert pm.records["pi_test_core_builtin"].builtin


# --- entry points (real dist-info on sys.path) ----------------------------------------------------


def test_entry_points_load_sorted_by_distribution_then_name(
    dirs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, agent = dirs
    site = tmp_path / "site"
    fake_distribution(
        site,
        "pi-ext-zeta",
        entry_points={"zeta": "pi_t_zeta"},
        modules={"pi_t_zeta": HOOK},
    ).activate(monkeypatch)
    fake_distribution(
        site,
        "pi-ext-alpha",
        version="2.0",
        entry_points={"b-second": "pi_t_alpha.b", "a-first": "pi_t_alpha.a"},
        modules={"pi_t_alpha.a": HOOK, "pi_t_alpha.b": HOOK},
    ).activate(monkeypatch)
    write(project / ".pi" / "extensions" / "local.py")
    pm = load(project, agent, entry_points=True, blocked=["hello"])
    names = [n for n in active(pm) if n in {"local", "a-first", "b-second", "zeta"}]
    assert names == ["local", "a-first", "b-second", "zeta"]
    record = pm.records["a-first"]
    assert (record.source, record.where) == ("entry point", "pi-ext-alpha==2.0")
    assert [ep.name for ep in pi_entry_points() if ep.name in {"zeta", "a-first"}] == ["a-first", "zeta"]
    assert pm.hooks_of("zeta") == ["agent_start"]


def test_entry_point_pointing_nowhere_or_at_a_class(
    dirs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, agent = dirs
    fake_distribution(
        tmp_path / "site",
        "pi-ext-broken",
        entry_points={
            "ghost": "pi_t_no_such_module",
            "noattr": "pi_t_real:missing",
            "klass": "pi_t_real:Plugin",
        },
        modules={"pi_t_real": "class Plugin:\n    pass\n"},
    ).activate(monkeypatch)
    pm = load(project, agent, entry_points=True)
    problems = {e.plugin: e.problem for e in pm.load_errors}
    assert "entry point 'ghost = pi_t_no_such_module' points to nothing" in problems["ghost"]
    assert "entry point 'noattr = pi_t_real:missing' points to nothing" in problems["noattr"]
    assert "targets a class" in problems["klass"]
    assert pm.records["ghost"].where == "pi-ext-broken==0.1.0"
    assert "PI_DISABLED_PLUGINS=ghost" in str(next(e for e in pm.load_errors if e.plugin == "ghost"))


def test_no_extensions_skips_third_party_entry_points_but_keeps_builtins(
    dirs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, agent = dirs
    fake_distribution(
        tmp_path / "site", "pi-ext-third", entry_points={"third": "pi_t_third"}, modules={"pi_t_third": HOOK}
    ).activate(monkeypatch)
    pm = load(project, agent, entry_points=True, no_extensions=True)
    names = active(pm)
    assert "third" not in names
    assert {"tools", "compaction"} <= set(names)  # pi's own distributions are built-ins
    assert pm.records["tools"].builtin and pm.records["tools"].source == "builtin"


def test_core_registers_its_builtin_providers_by_default(dirs: tuple[Path, Path]) -> None:
    project, agent = dirs
    pm = load_plugins(LoadOptions(cwd=project, agent_dir=agent, entry_points=False, env={}))
    assert [name for name, _ in pm.plugins_in_load_order()] == ["providers"]
    assert pm.records["providers"].source == "builtin"
    assert "register_providers" in pm.hooks_of("providers")


def test_reserved_names_are_the_builtins_and_a_local_namesake_is_refused_clearly(
    dirs: tuple[Path, Path],
) -> None:
    from pi_core.plugins.manager import RESERVED_PLUGIN_NAMES

    project, agent = dirs
    write(project / ".pi" / "extensions" / "tools.py")
    pm = load_plugins(LoadOptions(cwd=project, agent_dir=agent, env={}, trust_project=True))
    builtins = {name for name, record in pm.records.items() if record.builtin}
    assert builtins == RESERVED_PLUGIN_NAMES
    assert pm.records["tools"].builtin and "tools" in active(pm)  # the built-in still loads
    [error] = pm.load_errors
    assert error.source == "project" and error.location is not None and error.location.endswith("tools.py")
    assert (
        "'tools' is reserved for a built-in plugin of pi (catalogue, compaction, mcp, providers, tools)"
        in error.problem
    )
