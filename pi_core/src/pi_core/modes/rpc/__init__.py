"""RPC mode: pi's JSON-lines command protocol over stdin/stdout (see docs/rpc.md)."""

from __future__ import annotations
