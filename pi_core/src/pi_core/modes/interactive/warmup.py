"""Get the first request ready while the user types the first prompt.

The built-in wire APIs import their SDK on the first request (so that ``pi --help`` never pays
for it); in the REPL that would put the import — a few hundred milliseconds for ``openai`` or
``anthropic`` and their ``pydantic`` models — between Enter and the first token. A daemon thread
imports the modules the first request needs (only those: ``pi_core.ai.sdk_import``) as soon as
the REPL is up, with the HTTP transport under the SDK client and its TLS context; Python's import
lock makes a request that arrives meanwhile wait for the import to finish instead of doing it twice.
What is left is one-off work on the event loop (:func:`prepare_first_prompt`), done there in
slices of a few milliseconds so that keys and redraws go on in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

#: Per built-in wire API: its SDK, and pi's provider module (the SDK's request modules are
#: :func:`pi_core.ai.sdk_import.import_client_modules`'s; the Responses API's types come on top).
SDK_MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "anthropic-messages": ("anthropic", ("pi_core.ai.providers.anthropic",)),
    "openai-completions": ("openai", ("pi_core.ai.providers.openai_completions",)),
    "openai-responses": (
        "openai",
        ("openai.types.responses.response", "pi_core.ai.providers.openai_responses"),
    ),
    "azure-openai-responses": (
        "openai",
        ("openai.lib.azure", "openai.types.responses.response", "pi_core.ai.providers.openai_responses"),
    ),
}

#: What the first request imports besides the client, its transport and the SDK types: anyio's
#: asyncio backend (the connection), the IDNA codec (the host name) and the thread pool the
#: address lookup runs in.
TRANSPORT_MODULES = ("anyio._backends._asyncio", "encodings.idna", "concurrent.futures.thread")

_started: set[str] = set()
#: The import thread of each API (kept until it is done; see :func:`prepare_first_prompt`).
_threads: dict[str, threading.Thread] = {}


def warm_up(api: str | None) -> threading.Thread | None:
    """Start importing ``api``'s SDK in a daemon thread (once per API); ``None`` when there is
    nothing to import."""
    entry = SDK_MODULES.get(api or "")
    if entry is None or api in _started:
        return None
    _started.add(api or "")
    from pi_core.ai.sdk_import import install

    install()  # in this thread, before the other one imports (see install)
    thread = threading.Thread(target=_import_all, args=entry, name=f"pi-warm-{api}", daemon=True)
    thread.start()
    _threads[api or ""] = thread
    return thread


def _import_all(sdk: str, modules: tuple[str, ...]) -> None:
    from pi_core.ai.sdk_import import import_client_modules

    try:
        import_client_modules(sdk)  # with the shared TLS context: the HTTP transport (httpcore, h11)
        for name in modules:
            importlib.import_module(name)
        for name in TRANSPORT_MODULES:
            importlib.import_module(name)
    except Exception:  # an SDK that fails to import fails again, with its message, on the request
        return


#: Milliseconds of preparation the event loop runs before it lets keys and redraws through again.
SLICE_MS = 4.0


async def prepare_first_prompt(
    api: str | None,
    tools: Iterable[Any],
    lay_out_markdown: Callable[[], object],
    idle: Callable[[], bool] = lambda: True,
) -> None:
    """Do on the event loop, a few milliseconds at a time while the first prompt is typed, the
    one-off work the first prompt would otherwise do between Enter and its first token:

    * build the validators of pi's models (:class:`~pi_core._model.PiModel` defers them to first
      use, and the first prompt meets dozens: messages, events, session entries) and of the
      SDK's models loaded by :func:`warm_up` (the SDKs defer theirs too: the first streamed
      chunk built three of them);
    * the JSON schemas of the tools (the first one sets up pydantic's schema generator);
    * lay a markdown block out once (``lay_out_markdown``), which sets up the markdown parser
      and rich's rendering of it.

    Not in the import thread: building a model's validator while the loop's thread validates
    one is not safe in every pydantic release the project allows. It starts once that thread is
    done, so that no class is still being created, and stops when ``idle()`` turns false (a run
    has started: what it needs is built as it goes, as without this).
    """
    from pi_core._model import PiModel

    await asyncio.sleep(0.05)  # the first screen is drawn before this starts
    thread = _threads.get(api or "")
    if thread is not None:
        await asyncio.to_thread(thread.join)
    if not idle():
        return
    entry = SDK_MODULES.get(api or "")
    sdk_models = sys.modules.get(f"{entry[0]}._models") if entry is not None else None
    sdk_base = getattr(sdk_models, "BaseModel", None)
    models = [*_subclasses(PiModel), *(_subclasses(sdk_base) if isinstance(sdk_base, type) else [])]
    steps: list[Callable[[], object]] = [
        *(functools.partial(_build, model) for model in models),
        *(tool.json_schema for tool in tools),
        lay_out_markdown,
    ]
    deadline = _slice_end()
    for step in steps:
        with contextlib.suppress(Exception):  # what fails here fails again, reported, when used
            step()
        if time.perf_counter() > deadline:
            await asyncio.sleep(0)
            if not idle():
                return
            deadline = _slice_end()


def _build(model: Any) -> None:
    """Build one model's validator (in a frame of its own: ``model_rebuild`` resolves names left
    unresolved in the caller's locals too, and this frame has only ``model``)."""
    if not getattr(model, "__pydantic_complete__", True):
        model.model_rebuild(raise_errors=False)  # unresolved names: left for its first use


def _slice_end() -> float:
    return time.perf_counter() + SLICE_MS / 1000


def _subclasses(base: type) -> list[type[Any]]:
    found: list[type[Any]] = []
    todo: list[type[Any]] = [base]
    while todo:
        child: type[Any]
        for child in todo.pop().__subclasses__():
            if child not in found:
                found.append(child)
                todo.append(child)
    return found
