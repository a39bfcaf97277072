"""The flags of ``pi [options] [@files...] [messages...]``, as the TypeScript pi 1.6.0 has them
where they apply to us.

``RUN_OPTIONS`` declares them as click options (so ``--help`` lists them, plugins' flags are
appended the same way, and an unknown flag is a usage error with exit code 2);
:func:`run_options_from_params` turns click's parsed values into a :class:`RunOptions`, splitting
``@file`` arguments from messages; :func:`check_run_options` returns pi's warnings and errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import click

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
#: pi's rule for ``--session-id``: letters, digits, ``.``, ``_``, ``-``; alphanumeric at both ends.
SESSION_ID_PATTERN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
INVALID_SESSION_ID = (
    "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
    "and start and end with an alphanumeric character"
)
MODES = ("text", "json", "rpc")

AppMode = Literal["interactive", "print", "json", "rpc"]


@dataclass(frozen=True)
class RunOptions:
    """Everything the run command was asked to do, before any file or session is touched."""

    messages: tuple[str, ...] = ()
    file_args: tuple[str, ...] = ()
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    system_prompt: str | None = None
    append_system_prompt: tuple[str, ...] = ()
    mode: Literal["text", "json", "rpc"] | None = None
    print_: bool = False
    continue_: bool = False
    resume: bool = False
    session: str | None = None
    fork: str | None = None
    session_id: str | None = None
    name: str | None = None
    session_dir: str | None = None
    no_session: bool = False
    models: tuple[str, ...] | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] | None = None
    thinking: str | None = None
    extensions: tuple[str, ...] = ()
    no_extensions: bool = False
    skills: tuple[str, ...] = ()
    no_skills: bool = False
    prompt_templates: tuple[str, ...] = ()
    no_prompt_templates: bool = False
    themes: tuple[str, ...] = ()
    #: ``--use-theme``: the REPL's theme (a name or a ``light/dark`` pair) for this run only.
    use_theme: str | None = None
    no_themes: bool = False
    no_context_files: bool = False
    export: str | None = None
    list_models: str | None = None
    """``""`` when given without a search term; ``None`` when not given."""
    verbose: bool = False
    #: ``--tui-mode``: ``fullscreen`` or ``regular`` (else the ``tuiMode`` setting decides).
    tui_mode: Literal["fullscreen", "regular"] | None = None
    offline: bool = False
    extension_flags: dict[str, Any] = field(default_factory=dict)
    """Values of flags that plugins registered, by flag name."""

    def app_mode(self, stdin_is_tty: bool) -> AppMode:
        """pi's mode choice: rpc, json, then print when ``-p`` or stdin is piped, else interactive."""
        if self.mode == "rpc":
            return "rpc"
        if self.mode == "json":
            return "json"
        if self.print_ or not stdin_is_tty:
            return "print"
        return "interactive"


def _flag(*names: str, dest: str, help: str) -> click.Option:
    return click.Option([*names, dest], is_flag=True, default=False, help=help)


def _value(*names: str, dest: str, metavar: str, help: str, multiple: bool = False) -> click.Option:
    return click.Option([*names, dest], metavar=metavar, help=help, multiple=multiple)


RUN_OPTIONS: tuple[click.Option, ...] = (
    _value(
        "--provider",
        dest="provider",
        metavar="<name>",
        help="Provider name (default: the first provider with a key, see Environment)",
    ),
    _value(
        "--model",
        dest="model",
        metavar="<pattern>",
        help='Model pattern or ID (supports "provider/id" and optional ":<thinking>")',
    ),
    _value(
        "--api-key",
        dest="api_key",
        metavar="<key>",
        help="API key for this run, not stored (default: auth.json, then the provider's variable)",
    ),
    _value(
        "--system-prompt",
        dest="system_prompt",
        metavar="<text>",
        help="System prompt (default: coding assistant prompt)",
    ),
    _value(
        "--append-system-prompt",
        dest="append_system_prompt",
        metavar="<text>",
        multiple=True,
        help="Append text or file contents to the system prompt (can be used multiple times)",
    ),
    _value("--mode", dest="mode", metavar="<mode>", help="Output mode: text (default), json, or rpc"),
    _flag("--print", "-p", dest="print_", help="Non-interactive mode: process prompt and exit"),
    _flag("--continue", "-c", dest="continue_", help="Continue previous session"),
    _flag("--resume", "-r", dest="resume", help="Select a session to resume"),
    _value(
        "--session", dest="session", metavar="<path|id>", help="Use specific session file or partial UUID"
    ),
    _value(
        "--fork",
        dest="fork",
        metavar="<path|id>",
        help="Fork specific session file or partial UUID into a new session",
    ),
    _value(
        "--session-id",
        dest="session_id",
        metavar="<id>",
        help="Open this directory's session with this ID, or create it",
    ),
    _value(
        "--session-dir", dest="session_dir", metavar="<dir>", help="Directory for session storage and lookup"
    ),
    _value("--name", "-n", dest="name", metavar="<name>", help="Session display name"),
    _flag("--no-session", dest="no_session", help="Don't save session (ephemeral)"),
    _value(
        "--models",
        dest="models",
        metavar="<patterns>",
        help="Comma-separated model patterns for Ctrl+P cycling. "
        "Supports globs (anthropic/*, *sonnet*) and fuzzy matching",
    ),
    _flag("--no-tools", "-nt", dest="no_tools", help="Disable all tools by default (built-in and extension)"),
    _flag(
        "--no-builtin-tools",
        "-nbt",
        dest="no_builtin_tools",
        help="Disable built-in tools by default but keep extension/custom tools enabled",
    ),
    _value(
        "--tools",
        "-t",
        dest="tools",
        metavar="<tools>",
        help="Comma-separated allowlist of tool names or * patterns; "
        "only +name/-name entries change the default tools instead",
    ),
    _value(
        "--exclude-tools",
        "-xt",
        dest="exclude_tools",
        metavar="<tools>",
        help="Comma-separated tool names or * patterns to disable after all other tool options",
    ),
    _value(
        "--thinking",
        dest="thinking",
        metavar="<level>",
        help="Set thinking level: off, minimal, low, medium, high, xhigh, max",
    ),
    _value(
        "--skill",
        dest="skills",
        metavar="<path>",
        multiple=True,
        help="Load a skill file or directory (can be used multiple times)",
    ),
    _flag("--no-skills", "-ns", dest="no_skills", help="Disable skills discovery and loading"),
    _value(
        "--prompt-template",
        dest="prompt_templates",
        metavar="<path>",
        multiple=True,
        help="Load a prompt template file or directory (can be used multiple times)",
    ),
    _flag(
        "--no-prompt-templates",
        "-np",
        dest="no_prompt_templates",
        help="Disable prompt template discovery and loading",
    ),
    _value(
        "--theme",
        dest="themes",
        metavar="<path>",
        multiple=True,
        help="Load a theme file or directory (can be used multiple times)",
    ),
    _value(
        "--use-theme",
        dest="use_theme",
        metavar="<name[/name]>",
        help="Set the initial interactive theme for this run",
    ),
    _flag("--no-themes", dest="no_themes", help="Disable theme discovery and loading"),
    _flag(
        "--no-context-files",
        "-nc",
        dest="no_context_files",
        help="Disable AGENTS.md and CLAUDE.md discovery and loading",
    ),
    _value("--export", dest="export", metavar="<file>", help="Export session file to HTML and exit"),
    click.Option(
        ["--list-models", "list_models"],
        is_flag=False,
        flag_value="",
        default=None,
        metavar="[search]",
        help="List available models (with optional fuzzy search)",
    ),
    _value(
        "--tui-mode",
        dest="tui_mode",
        metavar="<mode>",
        help="Terminal UI: fullscreen (default on a capable terminal) or regular (inline)",
    ),
    _flag("--verbose", dest="verbose", help="Force verbose startup (overrides quietStartup setting)"),
    _flag("--offline", dest="offline", help="Disable startup network operations (same as PI_OFFLINE=1)"),
)

#: Parameters that are not plugin flags: ours, the positionals, and the core's plugin-control options.
_OWN_PARAMS = frozenset(option.name for option in RUN_OPTIONS if option.name) | {
    "args",
    "messages",
    "extensions",
    "no_extensions",
    "trust_project",
    "no_approve",
    "trace_hooks",
}


def _split_list(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(part.strip() for part in value.split(",") if part.strip())


def run_options_from_params(params: dict[str, Any]) -> RunOptions:
    """Build :class:`RunOptions` from click's parsed parameters (``args`` holds the positionals).

    Parameters not declared in :data:`RUN_OPTIONS` are plugin flags and land in ``extension_flags``.
    """
    messages: list[str] = []
    files: list[str] = []
    for arg in params.get("args", ()):
        if arg.startswith("@"):
            files.append(arg[1:])
        else:
            messages.append(arg)
    mode = params.get("mode")
    return RunOptions(
        messages=tuple(messages),
        file_args=tuple(files),
        provider=params.get("provider"),
        model=params.get("model"),
        api_key=params.get("api_key"),
        system_prompt=params.get("system_prompt"),
        append_system_prompt=tuple(params.get("append_system_prompt") or ()),
        # pi ignores an invalid --mode silently.
        mode=mode if mode in MODES else None,
        print_=bool(params.get("print_")),
        continue_=bool(params.get("continue_")),
        resume=bool(params.get("resume")),
        session=params.get("session"),
        fork=params.get("fork"),
        session_id=params.get("session_id"),
        name=params.get("name"),
        session_dir=params.get("session_dir"),
        no_session=bool(params.get("no_session")),
        models=_split_list(params.get("models")),
        no_tools=bool(params.get("no_tools")),
        no_builtin_tools=bool(params.get("no_builtin_tools")),
        tools=_split_list(params.get("tools")),
        exclude_tools=_split_list(params.get("exclude_tools")),
        thinking=params.get("thinking"),
        extensions=tuple(params.get("extensions") or ()),
        no_extensions=bool(params.get("no_extensions")),
        skills=tuple(params.get("skills") or ()),
        no_skills=bool(params.get("no_skills")),
        prompt_templates=tuple(params.get("prompt_templates") or ()),
        no_prompt_templates=bool(params.get("no_prompt_templates")),
        themes=tuple(params.get("themes") or ()),
        use_theme=params.get("use_theme"),
        no_themes=bool(params.get("no_themes")),
        no_context_files=bool(params.get("no_context_files")),
        export=params.get("export"),
        list_models=params.get("list_models"),
        verbose=bool(params.get("verbose")),
        tui_mode=params["tui_mode"] if params.get("tui_mode") in ("fullscreen", "regular") else None,
        offline=bool(params.get("offline")),
        extension_flags={k: v for k, v in params.items() if k not in _OWN_PARAMS},
    )


@dataclass(frozen=True)
class Diagnostic:
    """A start-up message: errors stop the run (exit 1), warnings are printed and ignored."""

    kind: Literal["warning", "error"]
    message: str

    def render(self) -> str:
        return f"{'Error' if self.kind == 'error' else 'Warning'}: {self.message}"


def check_run_options(options: RunOptions, app_mode: AppMode) -> tuple[RunOptions, list[Diagnostic]]:
    """pi's flag checks; returns the options with an invalid ``--thinking`` dropped, and diagnostics."""
    diagnostics: list[Diagnostic] = []
    if options.thinking is not None and options.thinking not in THINKING_LEVELS:
        diagnostics.append(
            Diagnostic(
                "warning",
                f'Invalid thinking level "{options.thinking}". Valid values: {", ".join(THINKING_LEVELS)}',
            )
        )
        options = replace(options, thinking=None)
    if options.session_id is not None:
        if not SESSION_ID_PATTERN.fullmatch(options.session_id):
            diagnostics.append(Diagnostic("error", INVALID_SESSION_ID))
        conflicts = [
            flag
            for flag, given in (
                ("--session", options.session is not None),
                ("--continue", options.continue_),
                ("--resume", options.resume),
            )
            if given
        ]
        if conflicts:
            diagnostics.append(
                Diagnostic("error", f"--session-id cannot be combined with {', '.join(conflicts)}")
            )
    if app_mode == "rpc" and options.file_args:
        diagnostics.append(Diagnostic("error", "@file arguments are not supported in RPC mode"))
    if options.fork:
        conflicts = [
            flag
            for flag, given in (
                ("--session", options.session is not None),
                ("--continue", options.continue_),
                ("--resume", options.resume),
                ("--no-session", options.no_session),
            )
            if given
        ]
        if conflicts:
            diagnostics.append(Diagnostic("error", f"--fork cannot be combined with {', '.join(conflicts)}"))
    return options, diagnostics
