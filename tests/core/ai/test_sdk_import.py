"""pi_core.ai.sdk_import: the SDKs' client modules without the rest, and the same names either way.

Each check runs in a fresh interpreter: the SDKs may already be imported in the test process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def run(script: str, *, eager: bool = False, path: Path | None = None) -> object:
    env = dict(os.environ)
    env.pop("PI_EAGER_SDK_IMPORT", None)
    if eager:
        env["PI_EAGER_SDK_IMPORT"] = "1"
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    ("sdk", "client", "unused"),
    [
        ("anthropic", "AsyncAnthropic", "anthropic.resources"),  # the API resources (beta, files, ...)
        ("openai", "AsyncOpenAI", "openai.types.responses.response"),  # the Responses API types
    ],
)
def test_client_modules_load_without_the_sdk_types(sdk: str, client: str, unused: str) -> None:
    script = f"""
        import json, sys
        from pi_core.ai.sdk_import import import_client_modules, sdk_object
        import_client_modules({sdk!r})
        cls = sdk_object("{sdk}._client", {client!r})
        loaded = [m for m in sys.modules if m == {sdk!r} or m.startswith("{sdk}.")]
        print(json.dumps({{
            "count": len(loaded),
            "unused": {unused!r} in sys.modules,
            "name": cls.__name__,
        }}))
    """
    lazy = run(script)
    eager = run(script, eager=True)
    assert isinstance(lazy, dict) and isinstance(eager, dict)
    assert lazy["name"] == eager["name"] == client
    assert eager["unused"] and not lazy["unused"]
    assert lazy["count"] * 2 < eager["count"], (lazy, eager)


PACKAGES = ("anthropic", "anthropic.types", "openai", "openai.types.chat", "openai.lib")


def test_every_name_is_there_as_an_eager_import_has_it() -> None:
    """The top packages after their deferred __init__, and re-export packages: same public names,
    each the object its submodule defines. (Submodules are left out: which of them an eager
    import happens to bind depends on what the other submodules import.)"""
    script = f"""
        import importlib, json, types
        from pi_core.ai.sdk_import import install
        install()
        found = {{}}
        for package in {PACKAGES!r}:
            module = importlib.import_module(package)
            values = {{n: getattr(module, n) for n in dir(module) if not n.startswith("_")}}
            values = {{n: v for n, v in values.items() if not isinstance(v, types.ModuleType)}}
            star = {{}}
            exec(f"from {{package}} import *", star)
            found[package] = {{
                "names": sorted(values),
                "star": sorted(
                    n for n, v in star.items()
                    if not n.startswith("__") and not isinstance(v, types.ModuleType)
                ),
                "owners": {{n: str(getattr(v, "__qualname__", type(v).__name__)) for n, v in values.items()}},
            }}
        print(json.dumps(found))
    """
    lazy = run(script)
    eager = run(script, eager=True)
    assert isinstance(lazy, dict) and isinstance(eager, dict)
    for package in PACKAGES:
        assert lazy[package]["star"] == eager[package]["star"], package
        assert set(eager[package]["names"]) <= set(lazy[package]["names"]), package
        owners = lazy[package]["owners"]
        assert {n: owners[n] for n in eager[package]["names"]} == eager[package]["owners"], package


def make_package(root: Path) -> None:
    """A small SDK-shaped package: an impure top, a pure re-export package with a name that is
    also a submodule's, ``from . import x`` and an ``__all__``."""
    top = root / "fakesdk"
    (top / "types").mkdir(parents=True)
    (top / "__init__.py").write_text(
        "import os as _os\nfrom . import types\nfrom ._client import Client\n"
        "INIT_RAN = True\nHEAVY = types.Thing\n"
    )
    (top / "_client.py").write_text("class Client:\n    pass\n")
    (top / "types" / "__init__.py").write_text(
        '"""Re-exports."""\nfrom __future__ import annotations\n'
        "from .thing import Thing as Thing\n"
        "from .shadow import Shadow as shadow\n"
        "from . import extra\n"
        "__all__ = ['Thing', 'shadow', 'extra']\n"
    )
    (top / "types" / "thing.py").write_text("class Thing:\n    pass\n")
    (top / "types" / "shadow.py").write_text("class Shadow:\n    pass\n")
    (top / "types" / "extra.py").write_text("VALUE = 42\n")


def test_lazy_and_deferred_loading_of_a_package(tmp_path: Path) -> None:
    make_package(tmp_path)
    script = """
        import importlib, json, sys
        from pi_core.ai.sdk_import import _Finder
        sys.meta_path.insert(0, _Finder(frozenset({"fakesdk"})))
        client = importlib.import_module("fakesdk._client")
        top = sys.modules["fakesdk"]
        before = {"init": "INIT_RAN" in vars(top), "types": "fakesdk.types" in sys.modules}
        types = importlib.import_module("fakesdk.types")
        thing_loaded_early = "fakesdk.types.thing" in sys.modules
        # the submodule named like an exported name does not replace the exported class
        importlib.import_module("fakesdk.types.shadow")
        shadow = types.shadow
        extra = types.extra.VALUE
        ran = top.INIT_RAN  # first attribute that is not a submodule: the real __init__ runs
        print(json.dumps({
            **before,
            "thing_loaded_early": thing_loaded_early,
            "shadow_is_class": isinstance(shadow, type),
            "extra": extra,
            "ran": ran,
            "heavy": top.HEAVY is types.Thing,
            "client": top.Client is client.Client,
            "all": types.__all__,
            "missing": hasattr(types, "Nothing"),
        }))
    """
    result = run(script, path=tmp_path)
    assert result == {
        "init": False,
        "types": False,
        "thing_loaded_early": False,
        "shadow_is_class": True,
        "extra": 42,
        "ran": True,
        "heavy": True,
        "client": True,
        "all": ["Thing", "shadow", "extra"],
        "missing": False,
    }


def test_a_package_doing_more_than_re_exports_loads_normally(tmp_path: Path) -> None:
    make_package(tmp_path)
    (tmp_path / "fakesdk" / "types" / "__init__.py").write_text(
        "from .thing import Thing as Thing\nREGISTRY = {'thing': Thing}\n"
    )
    script = """
        import importlib, json, sys
        from pi_core.ai.sdk_import import _Finder
        sys.meta_path.insert(0, _Finder(frozenset({"fakesdk"})))
        types = importlib.import_module("fakesdk.types")
        print(json.dumps({"loaded": "fakesdk.types.thing" in sys.modules, "registry": list(types.REGISTRY)}))
    """
    assert run(script, path=tmp_path) == {"loaded": True, "registry": ["thing"]}


def test_no_hook_when_asked_for_eager_imports() -> None:
    script = """
        import json, sys
        from pi_core.ai.sdk_import import install
        install()
        print(json.dumps(any(type(f).__module__ == "pi_core.ai.sdk_import" for f in sys.meta_path)))
    """
    assert run(script) is True
    assert run(script, eager=True) is False


@pytest.mark.parametrize("sdk", ["anthropic", "openai"])
def test_clients_share_one_tls_context_per_certificate_setting(sdk: str, tmp_path: Path) -> None:
    import certifi

    bundle = tmp_path / "ca.pem"
    bundle.write_bytes(Path(certifi.where()).read_bytes())
    script = f"""
        import json, os, ssl
        from pi_core.ai.sdk_import import http_client, sdk_object

        def context(client):
            pool = client._transport._pool
            return pool._ssl_context

        first, second = http_client({sdk!r}), http_client({sdk!r})
        from pi_core.ai.provider import StreamOptions
        from pi_core.ai.providers._base import client_kwargs
        name = "AsyncAnthropic" if {sdk!r} == "anthropic" else "AsyncOpenAI"
        client_class = sdk_object("{sdk}._client", name)
        sdk_client = client_class(api_key="k", **client_kwargs(StreamOptions(), {sdk!r}))
        wrapper = sdk_object("{sdk}._base_client", "AsyncHttpxClientWrapper")
        os.environ["SSL_CERT_FILE"] = {str(bundle)!r}
        third = http_client({sdk!r})
        print(json.dumps({{
            "wrapper": type(first) is wrapper and first is not second,
            "shared": context(first) is context(second) is context(sdk_client._client),
            "verifies": context(first).verify_mode == ssl.CERT_REQUIRED and context(first).check_hostname,
            "follows_env": context(third) is not context(first),
            "certificates": context(third).cert_store_stats()["x509_ca"] > 0,
            "timeout": first.timeout == sdk_object("{sdk}._constants", "DEFAULT_TIMEOUT"),
        }}))
    """
    found = run(script)
    assert found == {
        "wrapper": True,
        "shared": True,
        "verifies": True,
        "follows_env": True,
        "certificates": True,
        "timeout": True,
    }


def make_traced_package(root: Path) -> None:
    """An SDK-shaped package whose client binds a function of a lazy helpers package at import,
    as ``anthropic._base_client`` binds ``finish_api_call_span`` from its tracing helpers."""
    top = root / "tracedsdk"
    (top / "helpers").mkdir(parents=True)
    (top / "__init__.py").write_text("from ._client import call\nINIT_RAN = True\n")
    (top / "_client.py").write_text(
        "from .helpers import finish, Config\n\ndef call(value):\n    return finish(Config(), value)\n"
    )
    (top / "helpers" / "__init__.py").write_text(
        "from ._heavy import finish as finish\nfrom ._config import Config as Config\n"
    )
    (top / "helpers" / "_config.py").write_text("class Config:\n    pass\n")
    (top / "helpers" / "_heavy.py").write_text("def finish(config, value):\n    return ['real', value]\n")


TRACED_SETUP = """
    import importlib, json, sys
    from pi_core.ai import sdk_import
    sdk_import._LAZY_HELPERS = sdk_import._LAZY_HELPERS | {"tracedsdk.helpers"}
    sdk_import._DEFERRED_CALLS["tracedsdk.helpers"] = frozenset({"finish"})
    sys.meta_path.insert(0, sdk_import._Finder(frozenset({"tracedsdk"})))
    client = importlib.import_module("tracedsdk._client")
    helpers = sys.modules["tracedsdk.helpers"]
    deferred = "tracedsdk.helpers._heavy" not in sys.modules and "_heavy" not in vars(helpers)

    def real_everywhere():
        heavy = sys.modules["tracedsdk.helpers._heavy"]
        return client.finish is heavy.finish and helpers.finish is heavy.finish
"""


@pytest.mark.parametrize(
    "trigger",
    [
        "result = client.call(7)",  # the first call
        "result = sys.modules['tracedsdk'].INIT_RAN and client.call(7)",  # the SDK's full __init__
        "importlib.import_module('tracedsdk.helpers._heavy'); helpers.Config; result = client.call(7)",
    ],
)
def test_a_deferred_function_becomes_the_real_one_wherever_it_was_bound(tmp_path: Path, trigger: str) -> None:
    make_traced_package(tmp_path)
    script = (
        TRACED_SETUP
        + f"""
    {trigger}
    print(json.dumps({{"deferred": deferred, "result": result, "real": real_everywhere()}}))
    """
    )
    assert run(script, path=tmp_path) == {"deferred": True, "result": ["real", 7], "real": True}


def test_full_init_leaves_no_stand_in() -> None:
    script = """
        import json, sys
        from pi_core.ai.sdk_import import import_client_modules
        import_client_modules("anthropic")
        heavy = ("anthropic.lib._tracing._api_call", "anthropic.types.beta.message_create_params",
                 "anthropic.types.rate_limit_exceeded_error", "anthropic.types.organization")
        tracing = [m for m in heavy if m in sys.modules]
        table_ran = "ERROR_CLASSES" in vars(sys.modules["anthropic._error_classes"])
        import anthropic
        anthropic.AsyncAnthropic  # runs the SDK's __init__
        from anthropic import _base_client, _error_classes
        from anthropic.lib._tracing import _api_call
        print(json.dumps({
            "deferred_before_init": tracing + (["ERROR_CLASSES"] if table_ran else []),
            "real": _base_client.finish_api_call_span is _api_call.finish_api_call_span
                and _base_client.make_status_error is _error_classes.make_status_error,
        }))
    """
    assert run(script) == {"deferred_before_init": [], "real": True}


def test_the_sdk_typed_client_after_pi_s_import_has_the_real_tracing_helpers() -> None:
    """A plugin's own client, used through the SDK's typed ``messages.create``, after pi's path
    imported the client modules: the resource module imports the tracing helpers, the stand-in
    in the base client gives way to the real function, and the request streams as usual."""
    script = """
        import asyncio, json, sys
        from pi_core.ai.sdk_import import import_client_modules, sdk_object
        from pi_core.testing import LoopbackLLMServer, text_turn
        import_client_modules("anthropic")
        client_class = sdk_object("anthropic._client", "AsyncAnthropic")
        with LoopbackLLMServer() as server:
            server.add(text_turn("hello"))

            async def main():
                url = server.base_url("anthropic-messages")
                client = client_class(api_key="k", base_url=url, max_retries=0)
                stream = await client.messages.create(
                    model="m", max_tokens=5, stream=True, messages=[{"role": "user", "content": "hi"}]
                )
                kinds = [event.type async for event in stream]
                await client.close()
                return kinds

            kinds = asyncio.run(main())
        from anthropic import _base_client
        from anthropic.lib._tracing import _api_call
        print(json.dumps({
            "first": kinds[0], "last": kinds[-1],
            "real": _base_client.finish_api_call_span is _api_call.finish_api_call_span,
        }))
    """
    assert run(script) == {"first": "message_start", "last": "message_stop", "real": True}


def test_a_deferred_module_runs_on_first_use_and_its_stand_in_gives_way(tmp_path: Path) -> None:
    top = tmp_path / "tablesdk"
    top.mkdir()
    (top / "__init__.py").write_text("")
    (top / "_client.py").write_text(
        "from ._table import lookup\n\ndef fail(code):\n    return lookup(code)\n"
    )
    (top / "_table.py").write_text(
        "TABLE = {404: 'NotFound'}\n\ndef lookup(code):\n    return TABLE.get(code, 'Unknown')\n"
    )
    script = """
        import importlib, json, sys
        from pi_core.ai import sdk_import
        sdk_import._DEFERRED_MODULES["tablesdk._table"] = frozenset({"lookup"})
        sys.meta_path.insert(0, sdk_import._Finder(frozenset({"tablesdk"})))
        client = importlib.import_module("tablesdk._client")
        table = sys.modules["tablesdk._table"]
        before = "TABLE" in vars(table)
        missing = hasattr(table, "nothing")  # a lookup runs the module
        after_lookup = "TABLE" in vars(table)
        print(json.dumps({
            "before": before, "missing": missing, "after_lookup": after_lookup,
            "result": client.fail(404), "real": client.lookup is table.lookup,
        }))
    """
    assert run(script, path=tmp_path) == {
        "before": False,
        "missing": False,
        "after_lookup": True,
        "result": "NotFound",
        "real": True,
    }


def test_the_first_http_error_loads_the_sdk_s_error_classes() -> None:
    """pi's path defers the SDK's table of error classes; an error response still raises the
    class the table names for it (429: RateLimitError), with the server's body."""
    script = """
        import asyncio, json, sys
        from pi_core.ai.sdk_import import import_client_modules, sdk_object
        from pi_core.testing import LoopbackLLMServer, rate_limited
        import_client_modules("anthropic")
        client_class = sdk_object("anthropic._client", "AsyncAnthropic")
        table_before = "ERROR_CLASSES" in vars(sys.modules["anthropic._error_classes"])
        with LoopbackLLMServer() as server:
            server.add(rate_limited())

            async def main():
                url = server.base_url("anthropic-messages")
                client = client_class(api_key="k", base_url=url, max_retries=0, open_telemetry=False)
                try:
                    await client.post("/v1/messages", body={"model": "m"}, cast_to=object)
                except Exception as error:
                    return type(error).__name__, error.status_code, error.body
                finally:
                    await client.close()

            name, status, body = asyncio.run(main())
        from anthropic import _base_client, _error_classes
        print(json.dumps({
            "table_before": table_before, "error": name, "status": status,
            "message": body["error"]["message"],
            "real": _base_client.make_status_error is _error_classes.make_status_error,
        }))
    """
    assert run(script) == {
        "table_before": False,
        "error": "RateLimitError",
        "status": 429,
        "message": "Rate limit reached for requests",
        "real": True,
    }


def test_a_pi_request_loads_neither_the_tracing_helpers_nor_the_error_table() -> None:
    script = """
        import asyncio, json, sys
        from pi_core.ai.provider import Context, StreamOptions
        from pi_core.ai.messages import UserMessage
        from pi_core.ai.builtin_providers import register_builtin_api_providers
        from pi_core.ai.stream import complete_simple
        from pi_core.testing import LoopbackLLMServer, text_turn
        register_builtin_api_providers()
        with LoopbackLLMServer() as server:
            server.add(text_turn("hello"))
            model = server.model("anthropic-messages")
            context = Context(messages=[UserMessage(content="hi")])
            reply = asyncio.run(complete_simple(model, context, StreamOptions(api_key="k", max_retries=0)))
        table = vars(sys.modules["anthropic._error_classes"])
        print(json.dumps({
            "text": reply.content[0].text,
            "tracing": "anthropic.lib._tracing._api_call" in sys.modules,
            "table": "ERROR_CLASSES" in table,
        }))
    """
    assert run(script) == {"text": "hello", "tracing": False, "table": False}
