"""The context budget and the verdict's basis, declared from the chunking alone (§17):
before any query is searched, so no result can choose them.

Unset, the budget is `evaluator.metrics.context_budget.default_budget` (k × the baseline's
mean chunk tokens, rounded up: the one rule plan, eval, gate and every view share), and
the verdict is decided at budget when the candidates' mean chunk tokens differ by more
than 10 %, else at k.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from evaluator.candidates import Settings
from evaluator.chunk import Chunk
from evaluator.metrics.context_budget import budget_rule, default_budget
from evaluator.metrics.index import TokenCounter
from evaluator.metrics.stats import IndexStats, chunk_count, indexed_chars
from labeler.core.errors import ConfigError

CROSSING_RULE = "left out"
"""What happens to the chunk that would cross the budget: it is left out, and the context
ends there (a later, smaller chunk does not take its place). The same for every candidate."""
SIZE_SPREAD = 0.10
"""Mean chunk tokens differing by more than this share decide the verdict at budget."""


@dataclass(frozen=True)
class Sized:
    """One candidate's index size, and its smallest chunk."""

    stats: IndexStats
    """Chunk count, characters and tokens."""
    least: int | None
    """Tokens in its smallest chunk; None for an empty index."""


def sized(
    chunks: Sequence[Chunk], counter: TokenCounter, count_many: Callable[[list[str]], list[int]]
) -> Sized:
    """Every chunk counted once (in batches, no count kept): the index's size figures."""
    total = top = n = 0
    least: int | None = None
    for tokens in counter.counts(chunks, count_many, ()):
        total, top, n = total + tokens, max(top, tokens), n + 1
        least = tokens if least is None else min(least, tokens)
    stats = IndexStats(chunk_count(chunks), indexed_chars(chunks), total,
                       total / n if n else None, top if n else None)  # fmt: skip
    return Sized(stats, least)


def declare(
    settings: Settings, sizes: Mapping[str, Sized], file: str | None = None
) -> tuple[Settings, dict[str, Any]]:
    """The settings with the budget and the basis resolved, and how each was chosen (for
    run.json's `context_budget`). A budget no chunk of some candidate fits is refused."""
    means = {n: s.stats.mean_chunk_tokens or 0.0 for n, s in sizes.items()}
    budget = settings.budget
    if budget is None:
        budget = default_budget(settings.k, means[settings.baseline])
    for name, size in sizes.items():
        if size.least is not None and budget < size.least:
            raise ConfigError(
                f"budget {budget:,} is smaller than every chunk of candidate {name!r} "
                f"(its smallest holds {size.least:,} tokens)", file=file, key="settings.budget",
            )  # fmt: skip
    low, high = min(means.values()), max(means.values())
    spread = high / low - 1 if low else 0.0
    decide = settings.decide or ("budget" if high > low * (1 + SIZE_SPREAD) else "k")
    note = {
        "budget": budget,
        "budget_from": "settings" if settings.budget is not None else "default",
        "budget_rule": budget_rule(settings.k, settings.baseline, means[settings.baseline]),
        "crossing_chunk": CROSSING_RULE,
        "decide": decide,
        "decide_from": "settings" if settings.decide is not None else "default",
        "decide_rule": f"budget when the candidates' mean chunk tokens differ by more than "
                       f"{SIZE_SPREAD:.0%}, else k",
        "size_spread": round(spread, 4),
    }  # fmt: skip
    return replace(settings, budget=budget, decide=decide), note
