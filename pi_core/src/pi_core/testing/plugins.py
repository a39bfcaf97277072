"""Test helpers for plugin code: a recorder of hook calls and fake installed distributions.

``HookRecorder`` watches a :class:`~pi_core.plugins.dispatch.Dispatcher` through its ``monitor``;
``fake_distribution`` writes a real ``*.dist-info`` (with ``entry_points.txt``) into a directory,
so ``importlib.metadata`` finds it once that directory is on ``sys.path`` — no mock of the manager.
"""

from __future__ import annotations

import fnmatch
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pluggy

    from pi_core.plugins.dispatch import Dispatcher


@dataclass(frozen=True)
class HookCall:
    hook: str
    plugin: str
    kwargs: dict[str, Any]
    result: Any
    exception: BaseException | None


class HookRecorder:
    """Records every handler call a dispatcher makes, in call order."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.records: list[HookCall] = []
        self._undo = dispatcher.monitor(self._before, self._after)

    def _before(self, hook: str, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]) -> None:
        pass

    def _after(
        self, outcome: pluggy.Result[Any], hook: str, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> None:
        exception = outcome.exception
        result = None if exception is not None else outcome.get_result()
        plugin = impls[0].plugin_name if impls else "?"
        self.records.append(HookCall(hook, plugin, dict(kwargs), result, exception))

    def calls(self, *patterns: str) -> list[HookCall]:
        """Calls whose hook name matches any of the glob ``patterns`` (all calls without patterns)."""
        if not patterns:
            return list(self.records)
        return [c for c in self.records if any(fnmatch.fnmatchcase(c.hook, p) for p in patterns)]

    def sequence(self) -> list[tuple[str, str]]:
        """``(hook, plugin)`` pairs in call order."""
        return [(c.hook, c.plugin) for c in self.records]

    def assert_sequence(self, *expected: str | tuple[str, str]) -> None:
        """Assert that the calls contain ``expected`` in this order (other calls may come between).

        Items are hook names or ``(hook, plugin)`` pairs.
        """
        position = 0
        seen = self.sequence()
        for item in expected:
            while position < len(seen):
                hook, plugin = seen[position]
                position += 1
                if item == hook or item == (hook, plugin):
                    break
            else:
                raise AssertionError(f"{item!r} not found in order; calls were: {seen}")

    def close(self) -> None:
        self._undo()


class _SysPath(Protocol):
    def syspath_prepend(self, path: str | Path) -> None: ...


@dataclass
class FakeDistribution:
    name: str
    version: str
    #: Directory holding the ``.dist-info`` (and any modules written with it).
    site: Path
    #: Extra source roots the entry points import from (e.g. an example's ``src``).
    source_roots: list[Path] = field(default_factory=list)

    def activate(self, monkeypatch: _SysPath) -> FakeDistribution:
        """Put the distribution (and its source roots) on ``sys.path`` for the current test."""
        for root in (*self.source_roots, self.site):
            monkeypatch.syspath_prepend(str(root))
        return self


def fake_distribution(
    site: Path,
    name: str,
    *,
    version: str = "0.1.0",
    entry_points: Mapping[str, str],
    modules: Mapping[str, str] | None = None,
    source_roots: list[Path] | None = None,
    group: str = "pi",
) -> FakeDistribution:
    """Write a real installed distribution into ``site``.

    ``entry_points`` maps entry-point names to ``module[:attr]`` targets in ``group``; ``modules``
    maps dotted module names to their source, written under ``site`` (packages get ``__init__.py``).
    """
    site.mkdir(parents=True, exist_ok=True)
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(exist_ok=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = [f"[{group}]", *(f"{ep} = {target}" for ep, target in entry_points.items())]
    (dist_info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    for dotted, source in (modules or {}).items():
        parts = dotted.split(".")
        directory = site.joinpath(*parts[:-1])
        directory.mkdir(parents=True, exist_ok=True)
        for depth in range(1, len(parts)):
            init = site.joinpath(*parts[:depth], "__init__.py")
            if not init.exists():
                init.write_text("")
        (directory / f"{parts[-1]}.py").write_text(textwrap.dedent(source))
    return FakeDistribution(name, version, site, list(source_roots or []))


def make_plugin(**hooks: Any) -> object:
    """A plugin object whose attributes are the given hook implementations (marked if not yet)."""
    import types

    from pi_core import hookimpl

    marked = {name: fn if hasattr(fn, "pi_impl") else hookimpl(fn) for name, fn in hooks.items()}
    return types.SimpleNamespace(**marked)


class PluginHarness:
    """An isolated plugin manager + dispatcher + facade, with ad-hoc plugins added in load order.

    ``strict`` (default on, as everywhere in ``pi_core.testing``) makes a raising handler fail the
    test; pass ``strict=False`` to test isolation, then read ``errors``.
    """

    def __init__(self, *, strict: bool = True, ctx: Any = None) -> None:
        from pi_core.plugins.dispatch import Dispatcher, HookErrorRecord, Hooks
        from pi_core.plugins.manager import PiPluginManager

        self.pm = PiPluginManager()
        self.errors: list[HookErrorRecord] = []
        self.dispatcher = Dispatcher(self.pm, on_error=self.errors.append, strict=strict)
        self.hooks = Hooks(self.dispatcher)
        self.ctx = ctx

    def add(self, name: str, **hooks: Any) -> object:
        """Register a plugin called ``name`` implementing ``hooks`` (validated like a loaded one)."""
        from pi_core.plugins.manager import PluginRecord

        plugin = make_plugin(**hooks)
        self.pm.add_plugin(plugin, PluginRecord(name, "flag", f"<test plugin {name}>"))
        return plugin
