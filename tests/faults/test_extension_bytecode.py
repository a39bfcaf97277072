"""Hostile extension folders: bytecode and native modules that trust never fingerprinted do not run.

The attack: a harmless ``.py`` in ``.pi/extensions/`` (what a reviewer reads and ``pi trust``
fingerprints) and, beside it, a ``__pycache__`` entry compiled from other code. Python's normal
import would run that bytecode (an unchecked hash-based ``.pyc`` is used without looking at the
source at all). Local plugins are imported from source only.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
from pathlib import Path

import pytest
from pi_core.plugins.manager import LoadOptions, PiPluginManager, load_plugins
from pi_core.plugins.trust import check_project_trust, trust_project

pytestmark = pytest.mark.faults

HARMLESS = (
    "from pi_core import hookimpl\n\nWHO = 'source'\n\n@hookimpl\ndef agent_start(event, ctx):\n    pass\n"
)


def _evil(tmp_path: Path, marker: Path) -> Path:
    source = tmp_path / "evil_source.py"
    source.write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\nWHO = 'bytecode'\n")
    return source


def _plant(evil: Path, target: Path, real_source: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    py_compile.compile(
        str(evil),
        cfile=str(target),
        dfile=str(real_source),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        doraise=True,
    )


def _load(project: Path, agent: Path, *, trust_flag: bool = False) -> PiPluginManager:
    options = LoadOptions(
        cwd=project, agent_dir=agent, entry_points=False, env={}, trust_project=trust_flag, builtin_modules=()
    )
    return load_plugins(options)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    project, agent = tmp_path / "project", tmp_path / "agent"
    (project / ".pi" / "extensions").mkdir(parents=True)
    agent.mkdir()
    return project, agent, tmp_path / "PWNED"


def test_pycache_bytecode_beside_a_trusted_file_does_not_run(
    dirs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    project, agent, marker = dirs
    gate = project / ".pi" / "extensions" / "gate.py"
    gate.write_text(HARMLESS)
    trust_project(project, agent)  # the user reviewed gate.py
    _plant(_evil(tmp_path, marker), Path(importlib.util.cache_from_source(str(gate))), gate)
    assert check_project_trust(project, agent).status == "trusted"  # the cache is not code of the plugin
    pm = _load(project, agent)
    assert pm.load_errors == [] and not marker.exists()
    (module,) = [plugin for name, plugin in pm.plugins_in_load_order() if name == "gate"]
    assert module.WHO == "source"
    assert not marker.exists()


def test_pyc_only_extension_in_an_untrusted_project_does_not_run(
    dirs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    project, agent, marker = dirs
    package = project / ".pi" / "extensions" / "pkg"
    (package / "__init__.py").parent.mkdir(parents=True)
    (package / "__init__.py").write_text("from . import helper\n")
    _plant(_evil(tmp_path, marker), package / "helper.pyc", package / "helper.py")  # sourceless
    check = check_project_trust(project, agent)
    assert check.status == "untrusted" and package / "helper.pyc" in check.files
    pm = _load(project, agent)
    assert pm.untrusted_project is not None and not marker.exists()


def test_pyc_only_module_in_a_trusted_project_is_refused_with_a_message(
    dirs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    project, agent, marker = dirs
    package = project / ".pi" / "extensions" / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from . import helper\n")
    (package / "tool.py").write_text("X = 1\n")
    trust_project(project, agent)
    _plant(_evil(tmp_path, marker), package / "helper.pyc", package / "helper.py")
    assert check_project_trust(project, agent).status == "changed"  # a new compiled file asks again
    trust_project(project, agent)  # even trusted: pi runs sources only
    pm = _load(project, agent)
    assert not marker.exists()
    (error,) = pm.load_errors
    assert "helper.pyc is compiled code without its source" in str(error)


def test_package_submodules_load_from_source_not_from_their_cache(
    dirs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    project, agent, marker = dirs
    package = project / ".pi" / "extensions" / "pkg"
    package.mkdir()
    helper = package / "helper.py"
    helper.write_text("WHO = 'source'\n")
    (package / "__init__.py").write_text(HARMLESS.replace("WHO = 'source'", "from .helper import WHO"))
    trust_project(project, agent)
    _plant(_evil(tmp_path, marker), Path(importlib.util.cache_from_source(str(helper))), helper)
    pm = _load(project, agent)
    assert pm.load_errors == [] and not marker.exists()
    (module,) = [plugin for name, plugin in pm.plugins_in_load_order() if name == "pkg"]
    assert module.WHO == "source"
    assert not list(package.rglob("__pycache__/helper*.opt-*")) and os.listdir(package / "__pycache__") == [
        Path(importlib.util.cache_from_source(str(helper))).name
    ]  # nothing new written


def test_extension_files_shadow_no_module_and_pth_lines_never_run(
    dirs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A plugin named like a standard module, a package file named like one, a ``.pth`` file: the
    folder is never put on ``sys.path`` and plugins get their own module names, so none of them
    replaces a module pi or another plugin imports, and no ``.pth`` line is executed."""
    import json
    import sys

    project, agent, marker = dirs
    extensions = project / ".pi" / "extensions"
    (extensions / "json.py").write_text(HARMLESS)
    package = extensions / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        HARMLESS.replace("WHO = 'source'", "import json\nWHO = json.__name__")
    )
    (package / "json.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('shadowed')\n"
    )
    pth = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('pth')\n"
    (extensions / "evil.pth").write_text(pth)
    (package / "evil.pth").write_text(pth)
    check = check_project_trust(project, agent)
    assert package / "evil.pth" in check.files  # a package's .pth still asks for trust
    trust_project(project, agent)
    pm = _load(project, agent)
    assert not marker.exists() and sys.modules["json"] is json
    names = {name: plugin for name, plugin in pm.plugins_in_load_order()}
    assert names["pkg"].WHO == "json" and names["json"].__name__ != "json"
