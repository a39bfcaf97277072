"""Bring session files of format versions 1 and 2 to version 3, as pi does on load (spec §9).

Works on the parsed JSON objects in place; keys added here land after the existing ones,
exactly where pi's in-place mutation puts them.
"""

from __future__ import annotations

from typing import Any

from pi_core.session.entries import CURRENT_SESSION_VERSION
from pi_core.session.paths import new_entry_id


def header_version(header: dict[str, Any]) -> int:
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def _v1_to_v2(items: list[dict[str, Any]]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    for item in items:
        if item.get("type") == "session":
            item["version"] = 2
            continue
        item["id"] = new_entry_id(taken)
        taken.add(item["id"])
        item["parentId"] = previous
        previous = item["id"]
        if item.get("type") == "compaction" and "firstKeptEntryIndex" in item:
            index = item["firstKeptEntryIndex"]
            # The index counts the parsed objects with the header at position 0.
            if isinstance(index, int) and 0 <= index < len(items):
                target = items[index]
                if target.get("type") != "session" and isinstance(target.get("id"), str):
                    item["firstKeptEntryId"] = target["id"]
            del item["firstKeptEntryIndex"]


def _v2_to_v3(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("type") == "session":
            item["version"] = 3
        elif item.get("type") == "message":
            message = item.get("message")
            if isinstance(message, dict) and message.get("role") == "hookMessage":
                message["role"] = "custom"


def migrate_items(items: list[dict[str, Any]]) -> bool:
    """Migrate header + entries (file order, header first) in place; True if anything changed."""
    header = next((item for item in items if item.get("type") == "session"), None)
    version = header_version(header) if header is not None else 1
    if version >= CURRENT_SESSION_VERSION:
        return False
    if version < 2:
        _v1_to_v2(items)
    _v2_to_v3(items)
    return True
