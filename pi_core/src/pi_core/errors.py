"""pi's exception hierarchy.

Every error pi raises on purpose derives from :class:`PiError`, so the CLI can map them to a clear
message and an exit status. ``ToolError`` (the error a tool raises for the model to read) lives in
:mod:`pi_core.agent.tools` because the agent loop owns it.
"""

from __future__ import annotations


def error_message(error: BaseException) -> str:
    """What a plugin error reads as when pi reports it: the exception's message alone, as pi
    reports an ``Error``'s ``message``; the type's name stands in for a message that is empty
    (``raise ValueError()``)."""
    return str(error) or type(error).__name__


class PiError(Exception):
    """Base class of every error pi raises deliberately."""


class ConfigError(PiError):
    """A settings file, flag or environment variable holds something pi cannot use."""


class PluginError(PiError):
    """A plugin misbehaved while one of its hooks ran.

    Attributes name the culprit the way pluggy does: which plugin, which hook, and where the
    implementation lives (``file:line``), with the original exception as ``__cause__``.
    """

    def __init__(
        self,
        message: str,
        *,
        plugin: str,
        hook: str | None = None,
        source: str | None = None,
        location: str | None = None,
    ) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.hook = hook
        self.source = source
        self.location = location


class PluginLoadError(PluginError):
    """A plugin could not be imported, registered or validated.

    ``problem`` is the one-line reason; ``str()`` gives the full message with how to go on without
    the plugin, ready to show to the user.
    """

    def __init__(self, *, plugin: str, source: str, problem: str, location: str | None = None) -> None:
        self.problem = problem
        where = f" ({location})" if location else ""
        message = f"Plugin {plugin!r} from {source}{where} failed to load: {problem}"
        message += f"\n  {how_to_skip(plugin, source)}"
        super().__init__(message, plugin=plugin, source=source, location=location)


def how_to_skip(plugin: str, source: str) -> str:
    """How to go on without a plugin, depending on where it came from."""
    if source == "flag":
        return "To run without it: drop the -e/--extension option that names it."
    block = f'add {plugin!r} to "disabledPlugins" in settings.json or set PI_DISABLED_PLUGINS={plugin}'
    if source == "builtin":
        return f"To run without it: {block}."
    return f"To run without it: {block}, or pass --no-extensions."


class PluginValidationError(PluginLoadError):
    """A plugin's hook implementations do not match the hook specifications (wraps pluggy's error)."""


class ProjectNotTrustedError(ConfigError):
    """The project holds extension code the user has not trusted yet."""
