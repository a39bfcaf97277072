"""``complete_doc``: the standard docstring sections of an event hookspec are written once."""

from __future__ import annotations

import inspect

from pi_core.plugins.combine import Combine, complete_doc

MINIMAL = """Something happened.

    :param event: ``what``.

    Example::

        pass

    .. versionadded:: 0.2
    """

OWN = """Something happened.

    Combine: CHAIN — each handler sees the last value.

    :param event: ``what``.
    :param ctx: the context (stale after this hook).
    :returns: a new value or ``None``.

    Errors: a raising handler is reported and contributes nothing.

    Example::

        pass

    .. versionadded:: 0.2
    """


def test_complete_doc_fills_the_standard_sections_in_template_order() -> None:
    assert inspect.cleandoc(complete_doc(MINIMAL, Combine.NOTIFY)).split("\n") == [
        "Something happened.",
        "",
        "Combine: NOTIFY — return values are ignored.",
        "",
        ":param event: ``what``.",
        ":param ctx: the extension context.",
        ":returns: ignored.",
        "",
        "Errors: a raising handler is reported and skipped.",
        "",
        "Example::",
        "",
        "    pass",
        "",
        ".. versionadded:: 0.2",
    ]


def test_complete_doc_keeps_what_a_hook_says_for_itself() -> None:
    assert complete_doc(OWN, Combine.CHAIN) == OWN
    chained = complete_doc(MINIMAL, Combine.CHAIN)
    assert "Combine:" not in chained and ":returns:" not in chained  # no standard text for CHAIN
    assert ":param ctx: the extension context." in chained
