"""How long the /tree selector takes on a big session: opening it and each key, CPU time.

    uv run python bench/bench_tree_view.py [--questions 5000] [--branch-every 50] [--runs 5]

The session is made in memory: questions and answers, a new branch from 25 questions back every
``--branch-every`` questions. Printed per step (median of the runs, process CPU time, so the load
of a shared machine counts less): opening the tree (``TreeState`` over ``get_tree()``), moving the
highlight, typing the first, second and third character of a search, and changing the filter.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from pi_core.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_core.modes.interactive.tree_view import TreeState
from pi_core.session.manager import SessionManager


def session(questions: int, branch_every: int) -> SessionManager:
    manager = SessionManager.in_memory("/bench")
    asked: list[str] = []
    for index in range(questions):
        asked.append(
            manager.append_message(UserMessage(content=[TextContent(text=f"question {index} on parsing")]))
        )
        answer = AssistantMessage(
            content=[TextContent(text=f"answer {index}")], api="x", provider="p", model="m"
        )
        manager.append_message(answer)
        if index % branch_every == branch_every - 1:
            manager.branch(asked[max(0, index - 25)])
    return manager


def timed(step: Callable[[], object]) -> float:
    started = time.process_time()
    step()
    return (time.process_time() - started) * 1000


def one_run(manager: SessionManager) -> dict[str, float]:
    roots = manager.get_tree()
    opened: list[TreeState] = []
    figures = {"open": timed(lambda: opened.append(TreeState(roots, manager.get_leaf_id(), page=20)))}
    state = opened[0]
    figures["move"] = timed(lambda: (state.move(-1), state.rows()))
    for name, char in (("type 1st char", "q"), ("type 2nd char", "u"), ("type 3rd char", "e")):
        figures[name] = timed(lambda char=char: (state.type_text(char), state.rows()))  # type: ignore[misc]
    figures["filter change"] = timed(lambda: (state.set_mode("user-only"), state.rows()))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5000)
    parser.add_argument("--branch-every", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    manager = session(options.questions, options.branch_every)
    steps: dict[str, list[float]] = {}
    for _ in range(options.runs):
        for name, value in one_run(manager).items():
            steps.setdefault(name, []).append(value)
    print(f"{manager.entry_count} entries, median of {options.runs} runs (CPU ms):")
    for name, values in steps.items():
        print(f"  {name:<14} {statistics.median(values):8.1f}")


if __name__ == "__main__":
    main()
