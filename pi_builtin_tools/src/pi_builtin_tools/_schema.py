"""Parameter models whose JSON schema is the plain shape pi sends (no titles, no ``anyOf`` with null).

Optional parameters are typed ``X | None = None`` in Python; the model only ever sees ``X``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import core_schema


class _PiSchema(GenerateJsonSchema):
    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        # pi's schemas carry no defaults; the descriptions say what the default is.
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        result = super().model_schema(schema)
        result.pop("title", None)
        return result


class ToolParams(BaseModel):
    """Base of every built-in tool's parameter model."""

    @classmethod
    def model_json_schema(
        cls,
        by_alias: bool | None = True,
        ref_template: str = "#/$defs/{model}",
        schema_generator: type[GenerateJsonSchema] = _PiSchema,
        mode: JsonSchemaMode = "validation",
        **kwargs: Any,
    ) -> dict[str, Any]:
        schema = super().model_json_schema(by_alias, ref_template, schema_generator, mode, **kwargs)
        return _inline_defs(schema)


def _inline_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace ``$ref`` to ``$defs`` by the definition itself, as TypeBox schemas are written."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return walk(defs[ref.removeprefix("#/$defs/")])
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    result: dict[str, Any] = walk(schema)
    return result
