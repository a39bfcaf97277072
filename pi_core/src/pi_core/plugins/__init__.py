"""pi's plugin layer: hook specifications, the plugin manager and loader, and the dispatcher.

* :mod:`pi_core.plugins.hookspecs` — the hooks (29 pi events + 7 ``register_*`` hooks);
* :mod:`pi_core.plugins.events` — event payload and result models;
* :mod:`pi_core.plugins.manager` — ``PiPluginManager`` and ``load_plugins`` (load order, blocking);
* :mod:`pi_core.plugins.dispatch` — ``Dispatcher`` (pi's call semantics) and the typed ``Hooks`` facade;
* :mod:`pi_core.plugins.registry` — tools, commands, flags… registered by plugins, with conflicts;
* :mod:`pi_core.plugins.trust` — project trust; :mod:`pi_core.plugins.context` — the ``ctx`` protocols.

Nothing is imported here, so ``import pi_core.plugins`` stays free.
"""

from __future__ import annotations
