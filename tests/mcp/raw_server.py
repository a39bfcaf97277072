"""An MCP server over stdio written by hand (no SDK), for what the SDK's server cannot send: tools
whose ``inputSchema`` or ``outputSchema`` is not valid JSON Schema, and results that do not match
it. ``RAW_TOOLS`` picks the tools it lists (comma separated names of :data:`SCHEMAS`, default
all); a call answers with the arguments it got.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

SCHEMAS: dict[str, Any] = {
    "good": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    "badtype": {"type": "object", "properties": {"a": {"type": "nonsense"}}},
    "badprops": {"type": "object", "properties": 5},
    "badrequired": {"type": "object", "properties": {"a": {"type": "string"}}, "required": "ab"},
    "badlength": {"type": "object", "properties": {"a": {"type": "string", "minLength": "3"}}},
    "badenum": {"type": "object", "properties": {"a": {"enum": 5}}},
    "badallof": {"type": "object", "allOf": 5},
    "badmaximum": {"type": "object", "properties": {"a": {"maximum": "z"}}},
    "badoutput": {"type": "object"},
    "mismatch": {"type": "object"},
    "notobject": "yes",
    "noschema": None,
}

#: Output schemas: one that is not JSON Schema, one the result does not match (pi 1.6.0 checks neither).
OUTPUTS: dict[str, Any] = {
    "badoutput": {"type": "object", "properties": {"x": {"type": "nonsense"}}, "required": 5},
    "mismatch": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
}


def tools() -> list[dict[str, Any]]:
    wanted = [n for n in os.environ.get("RAW_TOOLS", ",".join(SCHEMAS)).split(",") if n]
    listed = []
    for name in wanted:
        tool: dict[str, Any] = {"name": name, "description": f"Tool {name} echoes its arguments"}
        if SCHEMAS[name] is not None:
            tool["inputSchema"] = SCHEMAS[name]
        if name in OUTPUTS:
            tool["outputSchema"] = OUTPUTS[name]
        listed.append(tool)
    return listed


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    method = request.get("method")
    if "id" not in request:
        return None
    if method == "initialize":
        result: Any = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": tools()}
    elif method == "tools/call":
        text = json.dumps(request["params"].get("arguments", {}), sort_keys=True)
        result = {"content": [{"type": "text", "text": text}]}
        if request["params"]["name"] in OUTPUTS:
            result["structuredContent"] = {"x": 1}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no such method"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


for line in sys.stdin:
    if line.strip():
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
