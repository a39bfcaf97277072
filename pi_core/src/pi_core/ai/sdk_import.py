"""Import the provider SDKs' client machinery without importing the rest of each SDK.

``import anthropic`` executes about 3,000 modules and builds about 1,500 pydantic models (every
type of every API the SDK covers: batches, files, skills, agents, organisations ...), ``import
openai`` about 500; a pi request needs the async client, its SSE stream and a few types. The
cost is in two kinds of package ``__init__`` the SDKs' code generator writes:

* *re-export packages* (``anthropic.types``, ``openai.types.chat``, ...) whose ``__init__.py`` only
  re-exports names from their submodules (``from .message import Message as Message``). Loaded
  through :class:`_LazyExports`, such a package binds each name on first access instead (module
  ``__getattr__``, PEP 562): ``from anthropic.types import Message`` imports ``message.py`` and
  what it needs, not the ~1,000 siblings. ``__all__``, ``dir()`` and star imports see every name.
* the SDK's *top package* (``anthropic``, ``openai``), whose ``__init__`` also imports the cloud
  variants, helpers and tools and runs set-up code. Loaded through :class:`_DeferredInit`, it
  runs that ``__init__`` the first time an attribute that is not a submodule is looked up
  (``anthropic.AsyncAnthropic``, ``from openai import BaseModel``), so ``import
  anthropic._client`` pays only for the client. Code that uses ``anthropic.X`` gets exactly what an
  eager import gives, a moment later.

One function the Anthropic base client binds from its tracing helpers at import is handed out as
a stand-in until its module is needed (:class:`_Forwarder`).

Only the SDK's *types* packages (``types`` in the dotted name) and :data:`_LAZY_HELPERS` are made
lazy, and only when their ``__init__.py`` is nothing but docstrings, ``from __future__`` lines,
relative ``from .x import a [as b]`` lines and an ``__all__`` list; everything else keeps the
normal loader. (Type modules only define models. A re-export package elsewhere can mean more by
its imports: ``openai._vendor.httpx_aiohttp`` fails to import without ``aiohttp``, and the SDK
picks its aiohttp client class by that failure.) The hook acts on :data:`ROOTS` only, and not at
all once a root is imported or when ``PI_EAGER_SDK_IMPORT=1`` is set. docs/providers.md ("How a
built-in provider streams") has the figures.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, cast

if TYPE_CHECKING:
    import importlib.abc

#: The SDK packages the hook acts on.
ROOTS = frozenset({"anthropic", "openai"})

_installed = False
_install_lock = threading.Lock()


def install() -> None:
    """Put the hook in front of ``sys.meta_path`` (once; no-op with ``PI_EAGER_SDK_IMPORT=1``).

    Call it from the main thread before another thread imports an SDK: this module (and with it
    ``importlib``, which plain start-up does not import) must not be imported by two threads at
    once — the import system's deadlock avoidance can then hand one of them a half-initialised
    ``importlib`` that loads a second, broken copy of its path finder from source.
    """
    global _installed
    if _installed or os.environ.get("PI_EAGER_SDK_IMPORT") == "1":
        return
    with _install_lock:
        if not _installed:
            sys.meta_path.insert(0, _Finder())
            _installed = True


def sdk_object(module: str, name: str) -> Any:
    """``from <module> import <name>`` with the hook installed, e.g. ``anthropic._client``'s
    ``AsyncAnthropic``. Should an SDK release move the name, it is taken from the SDK's top
    package (the whole SDK then loads, as with no hook)."""
    install()
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return getattr(importlib.import_module(module.partition(".")[0]), name)


def import_client_modules(sdk: str) -> None:
    """Import what a request through ``sdk`` needs (the hook installed first) and build the TLS
    context its clients share (:func:`http_client`): the prefetch."""
    install()
    for name in _CLIENT_MODULES.get(sdk, ()):
        try:
            importlib.import_module(name)
        except ImportError:  # moved in another SDK release: the request finds its own way
            continue
    _tls_context(sdk)


# --- one TLS context per process -----------------------------------------------------------------

#: (sdk, SSL_CERT_FILE, SSL_CERT_DIR) -> the verifying TLS context its HTTP library builds
_tls_contexts: dict[tuple[str, str | None, str | None], Any] = {}
_tls_lock = threading.Lock()


def http_client(sdk: str) -> Any | None:
    """A new instance of the HTTP client ``sdk`` builds for itself when given none (its
    ``AsyncHttpxClientWrapper``: the SDK's timeout, connection limits, redirects and socket
    options), verifying certificates with a TLS context shared by every client of the process.
    ``None`` when that SDK release has no such class: the SDK then makes its own, as usual.

    A client per request otherwise loads the system's certificate store per request (about
    0.1 s of CPU on the benchmark machine). The context is the one the HTTP library builds for
    ``verify=True``, with ``SSL_CERT_FILE``/``SSL_CERT_DIR`` read as it reads them; a change of
    either gets a new one.
    """
    context = _tls_context(sdk)
    if context is None:
        return None
    return _client_class(sdk)(verify=context)


def _client_class(sdk: str) -> Any:
    return sdk_object(f"{sdk}._base_client", "AsyncHttpxClientWrapper")


def _tls_context(sdk: str) -> Any | None:
    key = (sdk, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _tls_lock:
        if key in _tls_contexts:
            return _tls_contexts[key]
        try:
            create = _create_tls_context(_client_class(sdk))
            context = create(verify=True, trust_env=True) if create is not None else None
        except (ImportError, AttributeError):  # another SDK release: leave the client to the SDK
            context = None
        _tls_contexts[key] = context
        return context


def _create_tls_context(client_class: type) -> Any | None:
    """``create_ssl_context`` of the HTTP library (``httpx`` or ``httpx2``) the class derives from."""
    sdk = client_class.__module__.partition(".")[0]
    for base in client_class.__mro__:
        root = base.__module__.partition(".")[0]
        if root != sdk and base.__name__ == "AsyncClient":
            config = importlib.import_module(f"{root}._config")
            return getattr(config, "create_ssl_context", None)
    return None


# --- imports in worker threads that requests wait for ---------------------------------------------

#: Background imports that a request must not overlap (see :func:`import_in_background`).
_guarded: set[concurrent.futures.Future[None]] = set()
_guarded_lock = threading.Lock()


def import_in_background(
    modules: Sequence[str], *, requests_wait_for: Sequence[str] = ()
) -> concurrent.futures.Future[None]:
    """Import ``requests_wait_for`` and then ``modules`` in a daemon thread; the future is done
    when all are (it holds the ImportError of a missing one).

    A request through a built-in provider waits (:func:`settle_guarded_imports`) until the
    ``requests_wait_for`` part is imported. The reason is the ``openai`` SDK: it looks up
    ``sys.modules["httpx"]`` during a request to recognise legacy ``httpx`` objects, and while
    another thread is still importing ``httpx`` it finds a module without its attributes
    (``partially initialized module 'httpx' has no attribute 'TimeoutException'`` — half of the
    ``pi -p`` runs with MCP servers failed so on a loaded machine). The MCP plugin imports
    ``httpx`` so; call this from the event loop's thread, before the request it must precede.
    """
    install()
    done: concurrent.futures.Future[None] = concurrent.futures.Future()
    gate: concurrent.futures.Future[None] = concurrent.futures.Future()
    with _guarded_lock:
        _guarded.add(gate)
    gate.add_done_callback(_release)

    def run() -> None:
        try:
            try:
                for name in requests_wait_for:
                    importlib.import_module(name)
            finally:
                gate.set_result(None)  # a request goes on either way; an error is the caller's
            for name in modules:
                importlib.import_module(name)
        except BaseException as error:  # handed to whoever awaits the import
            done.set_exception(error)
        else:
            done.set_result(None)

    threading.Thread(target=run, name="pi-import", daemon=True).start()
    return done


def _release(gate: concurrent.futures.Future[None]) -> None:
    with _guarded_lock:
        _guarded.discard(gate)


async def settle_guarded_imports() -> None:
    """Wait for the ``requests_wait_for`` part of running background imports (no-op when none)."""
    with _guarded_lock:
        pending = [gate for gate in _guarded if not gate.done()]
    if pending:
        await asyncio.wait([asyncio.wrap_future(gate) for gate in pending])


#: The modules a request imports, per SDK (the types its stream is parsed into included).
_CLIENT_MODULES = {
    "anthropic": ("anthropic._client", "anthropic._streaming"),  # its events arrive as plain dicts
    "openai": (
        "openai._client",
        "openai._streaming",
        "openai.types.chat.chat_completion",
        "openai.types.chat.chat_completion_chunk",
    ),
}


# --- what an __init__.py does --------------------------------------------------------------------

#: name -> (relative module as written, e.g. ``.message`` or ``.``, attribute)
_Plan = dict[str, tuple[str, str]]


@dataclass
class _Exports:
    """What a pure re-export ``__init__`` binds."""

    names: _Plan
    #: its ``__all__``, when it declares one
    declared: list[str] | None
    #: ``from __future__`` features (each binds its name, e.g. ``annotations``)
    features: list[str]
    #: submodules its imports bind as attributes (``from .x.y import z`` binds ``x``)
    bound_submodules: set[str]

    def public(self) -> list[str]:
        """What ``from package import *`` takes when the package declares no ``__all__``."""
        names = {*self.names, *self.features, *self.bound_submodules}
        return sorted(n for n in names if not n.startswith("_"))


def _plan(source: str) -> _Exports | None:
    """What a pure re-export ``__init__`` binds, or None if it does anything else."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found = _Exports({}, None, [], set())
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # docstring
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            found.features += [alias.asname or alias.name for alias in node.names]
            continue
        if isinstance(node, ast.ImportFrom) and node.level >= 1 and all(a.name != "*" for a in node.names):
            where = "." * node.level + (node.module or "")
            if node.level == 1 and node.module:
                found.bound_submodules.add(node.module.split(".")[0])
            for alias in node.names:
                found.names[alias.asname or alias.name] = (where, alias.name)
            continue
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "__all__"
        ):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                return None
            found.declared = list(value)
            continue
        return None
    return found


def _submodule_names(locations: Sequence[str]) -> set[str]:
    names: set[str] = set()
    for folder in locations:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(".py"):
                names.add(entry[:-3])
            elif "." not in entry and os.path.isdir(os.path.join(folder, entry)):
                names.add(entry)  # a package, or a namespace package (anthropic._decoders)
    names.discard("__init__")
    return names


def _resolve(package: str, where: str, attribute: str) -> Any:
    """What ``from <where> import <attribute>`` inside ``package`` binds."""
    if where == ".":  # ``from . import x``: the package's own submodule (never its lazy lookup)
        own = sys.modules[package].__dict__
        return own[attribute] if attribute in own else importlib.import_module(f"{package}.{attribute}")
    source = importlib.import_module(where, package)
    try:
        return getattr(source, attribute)
    except AttributeError:
        return importlib.import_module(f"{source.__name__}.{attribute}")


# --- loaders -------------------------------------------------------------------------------------


class _LazyExports:
    """A re-export package whose names are bound on first access."""

    def __init__(
        self, exports: _Exports, submodules: set[str], deferred_calls: frozenset[str] = frozenset()
    ) -> None:
        self.exports = exports
        self.submodules = submodules
        #: functions handed out as :class:`_Forwarder` while their module is not imported
        self.deferred_calls = deferred_calls

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        import __future__

        package = module.__name__
        exports = self.exports
        plan = exports.names
        submodules = self.submodules

        def __getattr__(name: str) -> Any:
            target = plan.get(name)
            if name in self.deferred_calls and target is not None:
                source = importlib.util.resolve_name(target[0], package)
                forwarder = _Forwarder.get(
                    package, name, lambda: _resolve(package, *target), lambda: _has_run(source)
                )
                if not forwarder.source_ran():
                    return forwarder  # not bound here: a later lookup may find the module imported
                return forwarder.materialize()
            if target is not None:
                value = _resolve(package, *target)
            elif name in submodules:
                value = importlib.import_module(f"{package}.{name}")
            else:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            setattr(module, name, value)
            _Forwarder.materialize_ready(package)
            return value

        def __dir__() -> list[str]:
            return sorted({*module.__dict__, *plan, *exports.bound_submodules})

        module.__getattr__ = __getattr__  # type: ignore[method-assign]
        module.__dir__ = __dir__  # type: ignore[method-assign]
        for feature in exports.features:
            setattr(module, feature, getattr(__future__, feature))
        module.__all__ = exports.declared if exports.declared is not None else exports.public()  # type: ignore[attr-defined]
        # A name that is also a submodule's would be overwritten by that submodule once it is
        # imported (the import system sets it on the package); the eager __init__ bound the name
        # last, so bind those now.
        for name in plan.keys() & submodules:
            if plan[name] != (".", name):
                setattr(module, name, _resolve(package, *plan[name]))


class _DeferredInit:
    """An SDK's top package whose ``__init__`` runs on the first non-submodule attribute lookup."""

    def __init__(self, real: importlib.machinery.SourceFileLoader, submodules: set[str]) -> None:
        self.real = real
        self.submodules = submodules
        self.lock = threading.RLock()
        self.done = False

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        package = module.__name__

        def complete() -> None:
            with self.lock:
                if not self.done:
                    self.done = True
                    for hook, ours in (("__getattr__", __getattr__), ("__dir__", __dir__)):
                        if module.__dict__.get(hook) is ours:
                            del module.__dict__[hook]
                    self.real.exec_module(module)
                    _Forwarder.materialize_all(package)  # the whole SDK is loaded now: no stand-ins left

        def __getattr__(name: str) -> Any:
            if name in self.submodules and not self.done:
                return importlib.import_module(f"{package}.{name}")
            complete()
            try:
                return module.__dict__[name]
            except KeyError:
                own = module.__dict__.get("__getattr__")
                if own is not None and own is not __getattr__:
                    return own(name)
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

        def __dir__() -> list[str]:
            complete()
            own = module.__dict__.get("__dir__")
            return list(own()) if own is not None and own is not __dir__ else sorted(module.__dict__)

        module.__getattr__ = __getattr__  # type: ignore[method-assign]
        module.__dir__ = __dir__  # type: ignore[method-assign]


class _Forwarder:
    """Stands in for a function whose module has not run yet, and calls it when called.

    Two uses, both in ``anthropic._base_client``, which binds these functions at import:

    * ``finish_api_call_span`` from the SDK's tracing helpers. The module defining it imports the
      typed request parameters of the Messages and beta Messages APIs (about 540 modules). The
      base client calls it only for a client that records OpenTelemetry spans, and pi's clients
      record none (``open_telemetry=False``), so on pi's path that module is never needed.
    * ``make_status_error`` from ``anthropic._error_classes``, whose table of error classes by
      status and error code imports about 250 modules of error types. It is called when a
      response is an HTTP error: the first error of a process loads the table (see
      :class:`_DeferredModule`).

    The first call, a lookup of the name once its module has run, and the SDK's full
    ``__init__`` put the real function in place of the stand-in in every module of the SDK that
    bound it, so code that imports the whole SDK sees what an eager import gives.
    """

    _all: ClassVar[dict[tuple[str, str], _Forwarder]] = {}
    #: guards ``_all`` only: a lookup must not wait for another thread's materialize (which imports)
    _registry_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, owner: str, name: str, load: Callable[[], Any], ready: Callable[[], bool]) -> None:
        self.owner = owner  # the module the name was looked up in
        self.name = name
        self._load = load  # runs what defines the function, and returns it
        self._ready = ready  # whether that has run
        self.real: Any = None
        self._lock = threading.RLock()
        self.__name__ = self.__qualname__ = name
        self.__module__ = owner

    @classmethod
    def get(cls, owner: str, name: str, load: Callable[[], Any], ready: Callable[[], bool]) -> _Forwarder:
        with cls._registry_lock:
            forwarder = cls._all.get((owner, name))
            if forwarder is None:
                forwarder = cls._all[(owner, name)] = cls(owner, name, load, ready)
            return forwarder

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.materialize()(*args, **kwargs)

    def source_ran(self) -> bool:
        return self._ready()

    def materialize(self) -> Any:
        """Load the real function and bind it wherever this stand-in is bound."""
        with self._lock:
            if self.real is None:
                self.real = self._load()
                root = self.owner.partition(".")[0]
                for module_name, module in list(sys.modules.items()):
                    if module is None or not (module_name == root or module_name.startswith(root + ".")):
                        continue
                    namespace = getattr(module, "__dict__", {})
                    for key, value in list(namespace.items()):
                        if value is self:
                            namespace[key] = self.real
                setattr(sys.modules[self.owner], self.name, self.real)
            return self.real

    @classmethod
    def materialize_ready(cls, owner: str) -> None:
        """Replace the stand-ins of ``owner`` whose module has run since they were handed out."""
        with cls._registry_lock:
            waiting = [f for f in cls._all.values() if f.owner == owner and f.real is None]
        for forwarder in waiting:
            if forwarder.source_ran():
                try:
                    forwarder.materialize()
                except (ImportError, AttributeError):  # another SDK release: the call finds its way
                    continue

    @classmethod
    def materialize_all(cls, root: str) -> None:
        with cls._registry_lock:
            forwarders = [f for f in cls._all.values() if f.owner.partition(".")[0] == root]
        for forwarder in forwarders:
            forwarder.materialize()


def _has_run(module_name: str) -> bool:
    """Whether a module is imported and its code has finished running."""
    module = sys.modules.get(module_name)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


class _DeferredModule:
    """A plain module whose code runs on its first attribute lookup, except for the functions in
    ``calls``, whose lookup gives a :class:`_Forwarder` while the code has not run."""

    def __init__(self, real: importlib.machinery.SourceFileLoader, calls: frozenset[str]) -> None:
        self.real = real
        self.calls = calls
        self.lock = threading.RLock()
        self.done = False

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        owner = module.__name__

        def complete() -> None:
            with self.lock:
                if self.done:
                    return
                self.done = True
                if module.__dict__.get("__getattr__") is __getattr__:
                    del module.__dict__["__getattr__"]
                self.real.exec_module(module)
            _Forwarder.materialize_ready(owner)

        def load(name: str) -> Any:
            complete()
            return module.__dict__[name]

        def __getattr__(name: str) -> Any:
            if name == "__path__":  # the import system asks whether this is a package: it is not
                raise AttributeError(name)
            if name in self.calls and not self.done:
                return _Forwarder.get(owner, name, lambda: load(name), lambda: self.done)
            complete()
            try:
                return module.__dict__[name]
            except KeyError:
                raise AttributeError(f"module {owner!r} has no attribute {name!r}") from None

        module.__getattr__ = __getattr__  # type: ignore[method-assign]


#: Re-export packages outside ``types`` whose submodules need nothing optional: the helpers
#: ``openai._client`` pulls in (structured-output parsing and pydantic tool schemas), and the
#: Anthropic SDK's tracing helpers, which the base client imports (see :class:`_Forwarder`).
_LAZY_HELPERS = frozenset({"openai.lib", "anthropic.lib._tracing"})

#: Functions of lazy packages handed out as :class:`_Forwarder` until their module is imported.
_DEFERRED_CALLS = {"anthropic.lib._tracing": frozenset({"finish_api_call_span"})}

#: Plain modules loaded as :class:`_DeferredModule`, with the functions they hand out as stand-ins.
_DEFERRED_MODULES = {"anthropic._error_classes": frozenset({"make_status_error"})}


def _may_be_lazy(fullname: str) -> bool:
    return "types" in fullname.split(".")[1:] or fullname in _LAZY_HELPERS


class _Finder:
    """The meta-path finder: the normal spec, with one of the two loaders above where it applies."""

    def __init__(self, roots: frozenset[str] = ROOTS) -> None:
        self.roots = roots

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] not in self.roots:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        calls = _DEFERRED_MODULES.get(fullname)
        if (
            calls is not None
            and spec is not None
            and isinstance(spec.loader, importlib.machinery.SourceFileLoader)
        ):
            spec.loader = cast("importlib.abc.Loader", _DeferredModule(spec.loader, calls))
            return spec
        if (
            spec is None
            or not spec.submodule_search_locations
            or not isinstance(spec.loader, importlib.machinery.SourceFileLoader)
            or not (spec.origin or "").endswith("__init__.py")
        ):
            return spec
        try:
            with open(spec.origin or "", encoding="utf-8") as file:
                source = file.read()
        except OSError:
            return spec
        submodules = _submodule_names(spec.submodule_search_locations)
        found = _plan(source) if _may_be_lazy(fullname) else None
        if found is not None:
            deferred = _DEFERRED_CALLS.get(fullname, frozenset())
            spec.loader = cast("importlib.abc.Loader", _LazyExports(found, submodules, deferred))
        elif fullname in self.roots:
            spec.loader = cast("importlib.abc.Loader", _DeferredInit(spec.loader, submodules))
        return spec
