"""Tool-argument validation with schemas that are not valid JSON Schema (an MCP server's, say):
as pi 1.6.0, a keyword with a value of the wrong shape is left out and an unknown type matches
nothing; no schema makes the validator itself fail."""

from __future__ import annotations

from typing import Any

import pytest
from pi_core.agent.tools import AgentTool
from pi_core.agent.validation import ToolArgumentsError, validate_tool_arguments


async def _execute(*args: Any) -> None:
    return None


def _tool(schema: dict[str, Any]) -> AgentTool:
    return AgentTool(name="t", label="t", description="d", parameters=schema, execute=_execute)


@pytest.mark.parametrize(
    ("schema", "arguments"),
    [
        ({"type": "object", "properties": 5}, {"a": 1}),
        ({"type": "object", "required": "ab"}, {"a": 1}),
        ({"type": "object", "required": [3]}, {}),
        ({"type": "object", "properties": {"a": {"type": "string", "minLength": "3"}}}, {"a": "x"}),
        ({"type": "object", "properties": {"a": {"maxItems": None}}}, {"a": [1, 2]}),
        ({"type": "object", "properties": {"a": {"maximum": "z"}}}, {"a": 1}),
        ({"type": "object", "properties": {"a": {"enum": 5}}}, {"a": 1}),
        ({"type": "object", "allOf": 5, "anyOf": [5, "x"], "oneOf": {}}, {"a": 1}),
        ({"type": "object", "additionalProperties": 5}, {"a": 1}),
    ],
)
def test_keywords_of_the_wrong_shape_are_left_out(schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    assert validate_tool_arguments(_tool(schema), arguments) == arguments


def test_a_type_json_schema_does_not_have_matches_nothing() -> None:
    tool = _tool({"type": "object", "properties": {"a": {"type": "nonsense"}}})
    with pytest.raises(ToolArgumentsError, match=r"  - a: must be nonsense"):
        validate_tool_arguments(tool, {"a": 1})
    assert validate_tool_arguments(tool, {}) == {}


def test_keywords_of_the_right_shape_still_apply() -> None:
    tool = _tool(
        {
            "type": "object",
            "properties": {"a": {"type": "string", "minLength": 2}, "n": {"maximum": 3}},
            "required": ["a"],
        }
    )
    with pytest.raises(ToolArgumentsError) as caught:
        validate_tool_arguments(tool, {"n": 5})
    assert "  - a: is required" in str(caught.value) and "  - n: must be <= 3" in str(caught.value)
