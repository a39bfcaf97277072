"""pi's default compaction strategy and branch summarization, as a plugin.

``DefaultCompactionStrategy`` is registered as "default" by :mod:`pi_builtin_compaction.plugin`.
The pieces (cut point, preparation, requests) are importable for other strategies to reuse.
"""

from __future__ import annotations
