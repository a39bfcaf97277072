"""Tool-argument validation against what pi 1.6.0 itself does.

``tests/fixtures/validation/validation.json`` holds what pi 1.6.0's ``validateToolArguments`` made
of each (schema, arguments) pair in ``cases.json``: the coerced arguments or the error text (see
the README there). Ours must give the same, for JSON-schema tools and, through their JSON schema,
for pydantic ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pi_core.agent.tools import AgentTool
from pi_core.agent.validation import ToolArgumentsError, validate_tool_arguments
from pydantic import BaseModel

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "validation"
CASES = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
PI16 = json.loads((FIXTURES / "validation.json").read_text(encoding="utf-8"))


async def _execute(*args: Any) -> None:
    return None


def _tool(parameters: Any) -> AgentTool:
    return AgentTool(name="t", label="t", description="d", parameters=parameters, execute=_execute)


def _outcome(parameters: Any, arguments: Any) -> dict[str, Any]:
    try:
        return {"ok": validate_tool_arguments(_tool(parameters), arguments)}
    except ToolArgumentsError as error:
        return {"error": str(error)}


def test_every_case_has_pi_16s_outcome() -> None:
    assert sorted(name for name, _, _ in CASES) == sorted(PI16)


@pytest.mark.parametrize(("name", "schema", "arguments"), CASES, ids=[case[0] for case in CASES])
def test_as_pi_16(name: str, schema: dict[str, Any], arguments: Any) -> None:
    got = _outcome(schema, arguments)
    # Compared as JSON: 3 and 3.0 are one number there, as in JavaScript.
    assert json.dumps(got, sort_keys=True) == json.dumps(PI16[name], sort_keys=True)


def test_the_arguments_given_are_never_modified() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}
    arguments = {"n": "3", "s": None}
    assert validate_tool_arguments(_tool(schema), arguments) == {"n": 3}
    assert arguments == {"n": "3", "s": None}
    unchanged = {"n": 1}
    validated = validate_tool_arguments(_tool(schema), unchanged)
    assert validated == unchanged and validated is not unchanged


class Edit(BaseModel):
    old: str
    new: str


class EditParams(BaseModel):
    path: str
    edits: list[Edit]
    limit: int | None = None


def test_a_pydantic_tool_gets_pi_s_coercion_and_wording_through_its_json_schema() -> None:
    tool = _tool(EditParams)
    done = validate_tool_arguments(tool, {"path": "a", "edits": {"old": "x", "new": 5}, "limit": "7"})
    assert done == EditParams(path="a", edits=[Edit(old="x", new="5")], limit=7)
    with pytest.raises(ToolArgumentsError) as caught:
        validate_tool_arguments(tool, {"edits": [{"old": "x"}], "limit": "many"})
    assert str(caught.value).startswith(
        'Validation failed for tool "t":\n'
        "  - path: missing\n"
        "  - edits.0.new: missing\n"
        "  - limit: expected integer, got string\n\n"  # the first branch of its anyOf
        "Received arguments:\n"
    )


def test_a_schema_that_cannot_be_used_fails_every_call_with_pi_s_message() -> None:
    tool = _tool({"type": "object", "properties": {"a": {"items": [True, 7]}}})
    with pytest.raises(ToolArgumentsError, match=r"^A schema must be an object or a boolean, got 7$"):
        validate_tool_arguments(tool, {})
