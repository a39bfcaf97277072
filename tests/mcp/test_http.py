"""pi_mcp/http.py builds on private parts of the SDK's streamable HTTP client (mcp 1.30 offers no
public way to learn that a response stream ended without its answer). These tests fail, naming
what changed, as soon as an SDK release changes those parts, so the override is looked at again
instead of silently doing nothing."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from mcp.client.streamable_http import RequestContext, StreamableHTTPTransport
from pi_mcp.http import Transport

SDK = importlib.metadata.version("mcp")


def _shape(method: Callable[..., Any]) -> str:
    """The parameters of ``method`` as names and defaults (``self, ctx, flag=False``)."""
    parts = []
    for parameter in inspect.signature(method).parameters.values():
        name, default = parameter.name, parameter.default
        parts.append(name if default is inspect.Parameter.empty else f"{name}={default!r}")
    return ", ".join(parts)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # overridden: the SDK's own _handle_post_request calls it
        ("_handle_sse_response", "self, response, ctx, is_initialization=False"),
        # what the override relies on: the events go to ctx.read_stream_writer.send
        (
            "_handle_sse_event",
            "self, sse, read_stream_writer, original_request_id=None, resumption_callback=None, "
            "is_initialization=False",
        ),
        # called by streamable_http(), positionally
        (
            "post_writer",
            "self, client, write_stream_reader, read_stream_writer, write_stream, start_get_stream, tg",
        ),
        ("handle_get_stream", "self, client, read_stream_writer"),
        ("terminate_session", "self, client"),
    ],
)
def test_the_sdk_methods_pi_mcp_builds_on_keep_their_signatures(name: str, expected: str) -> None:
    method = getattr(StreamableHTTPTransport, name, None)
    assert method is not None, f"mcp {SDK} has no StreamableHTTPTransport.{name}: see pi_mcp/http.py"
    assert _shape(method) == expected, (
        f"mcp {SDK} changed StreamableHTTPTransport.{name}({_shape(method)}): pi_mcp/http.py depends on it"
    )
    assert inspect.iscoroutinefunction(method), f"mcp {SDK}: StreamableHTTPTransport.{name} is not async"


def test_the_override_matches_the_method_it_replaces() -> None:
    assert Transport._handle_sse_response is not StreamableHTTPTransport._handle_sse_response
    assert _shape(Transport._handle_sse_response) == _shape(StreamableHTTPTransport._handle_sse_response)


def test_the_request_context_still_carries_what_the_override_reads() -> None:
    assert dataclasses.is_dataclass(RequestContext), f"mcp {SDK}: RequestContext is no longer a dataclass"
    fields = {field.name for field in dataclasses.fields(RequestContext)}
    missing = {"session_message", "read_stream_writer"} - fields
    assert not missing, f"mcp {SDK}: RequestContext lost {sorted(missing)}; pi_mcp/http.py reads them"
    transport = StreamableHTTPTransport("http://127.0.0.1:9/mcp")
    assert hasattr(transport, "session_id"), f"mcp {SDK}: the transport has no session_id any more"
