"""Tool-argument validation (spec tools.md §1.1): coerce toward the schema, check, report like pi 1.6.0.

Every tool's arguments go through the same steps pi 1.6.0 takes with its pi-schema validator:
:func:`~pi_core.agent.schema_coercion.coerce` turns loosely typed values into what the schema
meant, then :class:`~pi_core.agent.json_schema.Schema` lists what is still wrong, each problem
worded as pi words it. ``AgentTool.parameters`` is a JSON-schema dict or a pydantic model class;
a model is checked against its own JSON schema first (so a model sees the same messages whatever
the tool is written with) and then validated into an instance, pydantic's messages standing only
for what its schema cannot say.
"""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from typing import Any

from pydantic import BaseModel, ValidationError

from pi_core.agent.json_schema import Problem, Schema, SchemaError, dotted
from pi_core.agent.schema_coercion import coerce
from pi_core.agent.tools import AgentTool


class ToolArgumentsError(ValueError):
    """Raised with pi's ``Validation failed for tool ...`` text (or the schema's own error)."""


#: Checked schemas by the identity of the tool's parameters (which they keep alive), so a long
#: session does not re-examine a schema on every call; bounded for plugins that make tools afresh.
_SCHEMAS: OrderedDict[int, tuple[Any, Schema]] = OrderedDict()
_SCHEMAS_KEPT = 512


def _schema_of(parameters: Any) -> Schema:
    known = _SCHEMAS.get(id(parameters))
    if known is not None and known[0] is parameters:
        _SCHEMAS.move_to_end(id(parameters))
        return known[1]
    root = parameters.model_json_schema() if _is_model(parameters) else parameters
    schema = Schema(root)
    _SCHEMAS[id(parameters)] = (parameters, schema)
    if len(_SCHEMAS) > _SCHEMAS_KEPT:
        _SCHEMAS.popitem(last=False)
    return schema


def _is_model(parameters: Any) -> bool:
    return isinstance(parameters, type) and issubclass(parameters, BaseModel)


def _format(tool_name: str, problems: list[Problem], received: Any) -> str:
    lines = "\n".join(f"  - {path}: {message}" for path, message in problems)
    return (
        f'Validation failed for tool "{tool_name}":\n{lines}\n\n'
        f"Received arguments:\n{json.dumps(received, indent=2, ensure_ascii=False)}"
    )


def validate_tool_arguments(tool: AgentTool, arguments: Any) -> Any:
    """The validated arguments (a model instance or a coerced dict), or :class:`ToolArgumentsError`.

    ``arguments`` itself is never modified: a tool that changes what it is given must not change
    the tool call the transcript holds.
    """
    params = tool.parameters
    schema = _schema_of(params)
    try:
        value = coerce(schema, arguments)
        problems = schema.problems(value)
    except SchemaError as error:
        raise ToolArgumentsError(str(error)) from None
    if problems:
        raise ToolArgumentsError(_format(tool.name, [(dotted(p), m) for p, m in problems], arguments))
    if not (isinstance(params, type) and issubclass(params, BaseModel)):
        return copy.deepcopy(value) if value is arguments else value
    try:
        return params.model_validate(copy.deepcopy(value))
    except ValidationError as error:
        found = [(".".join(str(p) for p in err["loc"]) or "root", err["msg"]) for err in error.errors()]
        raise ToolArgumentsError(_format(tool.name, found, arguments)) from None
