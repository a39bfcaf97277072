"""pi's session storage: an append-only JSONL entry tree, compatible with the TypeScript pi.

Import from the submodules (``pi_core.session.manager``, ``.entries``, ``.context``,
``.convert``); this package module stays empty so importing ``pi_core`` stays cheap.
"""

from __future__ import annotations
