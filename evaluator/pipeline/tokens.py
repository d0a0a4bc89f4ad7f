"""Token counts of a run's chunks, counted once (§17): every candidate's chunk table is
counted document by document (each document encoded once, its words dropped after it),
and the sizes, the budget, the plan and every measure read those counts.

A warm run spent 2 s encoding the retrieved chunks again for its measures; they are now
found in their table's columns (one search per candidate) and read from its counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.tokenizers import TokenizerAdapter
from evaluator.metrics import TokenCounter
from evaluator.plan.counting import TextTokens
from labeler.core.progress import TaskFactory, no_task, stepped

Counts = npt.NDArray[np.int64]
"""Tokens of each chunk of one table, prefix included, in table order."""


def table_counts(
    tokenizer: TokenizerAdapter,
    texts: Mapping[str, str],
    tables: Mapping[str, ChunkTable],
    counter: TokenCounter | None = None,
    task: TaskFactory = no_task,
) -> dict[str, Counts]:
    """Candidate -> its chunks' tokens; with `counter`, each table made known to it;
    counted under `task`, by document."""
    with stepped(task, "counting tokens", _documents(tables)) as advance:
        found = TextTokens(tokenizer, texts).of_tables(tables, advance)
    if counter is not None:
        for name, table in tables.items():
            counter.know(table, found[name])
    return found


def _documents(tables: Mapping[str, ChunkTable]) -> int:
    """The documents `of_tables` walks: every table's, once."""
    return len({d for t in tables.values() for d in t.docs})


def prime_from_table(
    counter: TokenCounter,
    chunks: Sequence[Chunk],
    table: Sequence[Chunk],
    count_many: Callable[[list[str]], list[int]],
) -> None:
    """Every chunk of `chunks` counted: read from `table`'s counts (made known to `counter`)
    where the table holds it (same document, offsets and prefix: the same text), the rest
    encoded."""
    counts = counter.known(table)
    if counts is not None and isinstance(table, ChunkTable) and chunks:
        rows = table.find_many([c.doc for c in chunks], [c.start for c in chunks],
                               [c.end for c in chunks]).tolist()  # fmt: skip
        counter.remember({
            c.id: int(counts[r]) for c, r in zip(chunks, rows, strict=True)
            if r >= 0 and table.prefixes.get(r, "") == c.prefix
        })  # fmt: skip
    counter.prime(chunks, count_many)
