"""Building pydantic objects on the per-token hot path without validation (trusted core data only).

``model_construct`` walks every field to apply defaults; for event objects whose fields are all
given, setting the instance dict directly is several times cheaper. The result is an ordinary
model instance (it serialises, copies and compares like one). Callers must pass every field.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


def construct(cls: type[M], fields: dict[str, Any]) -> M:
    obj = cls.__new__(cls)
    _set(obj, "__dict__", fields)
    _set(obj, "__pydantic_fields_set__", set(fields))
    _set(obj, "__pydantic_extra__", {})
    _set(obj, "__pydantic_private__", None)
    return obj
