"""The provider layer: messages, models, the provider interface, the built-in wire APIs, keys, overflow.

Modules: ``messages`` (pi's message/content models), ``provider`` (Model, Context, StreamOptions,
events, ApiProvider, ProviderConfig, api registry), ``stream`` (stream_simple, complete_simple),
``models`` (catalogue + models.json registry), ``resolve`` (model patterns, --list-models text),
``auth`` (API keys, auth.json), ``overflow``, ``thinking``, ``transform``, ``builtin_providers``.
Importing this package is cheap: SDKs are imported only when a request is made.
"""

from __future__ import annotations
