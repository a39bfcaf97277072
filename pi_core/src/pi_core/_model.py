"""The base model every boundary-crossing object in pi derives from.

Attributes are snake_case in Python and camelCase on the wire, so session files and the
JSON/RPC streams match the TypeScript pi byte for byte (``parentId``, ``toolCallId``, ...).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class PiModel(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown fields are kept, never dropped."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        serialize_by_alias=True,
        # Validators are built on first use: start-up builds only what it touches.
        defer_build=True,
    )

    def to_json_dict(self) -> dict[str, Any]:
        """The object as pi writes it: camelCase keys, unset optional fields left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
