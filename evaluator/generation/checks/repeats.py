"""Repeated sentences (§23): an answer that says the same thing twice, as duplicate chunks
in the context invite. Sentences end at . ! ? or a line break; citations are left out
before comparing, so "X [1]." and "X [2]." are one sentence said twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.generation.checks.text import normal, without_citations

_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(answer: str) -> list[str]:
    """The answer's sentences, normal, empty ones left out."""
    return [s for part in _END.split(without_citations(answer)) if (s := normal(part))]


@dataclass(frozen=True)
class Repeats:
    """repeated_sentences = |{i : ∃ j < i, normal(s_i) = normal(s_j)}| over the answer's
    sentences s_1..s_n."""

    name = "repeated_sentences"
    repeated: tuple[str, ...]
    """Each repeat, normal, in order (a sentence said three times is listed twice)."""
    sentences: int

    @property
    def value(self) -> int:
        return len(self.repeated)


def repeats(answer: str) -> Repeats:
    seen: set[str] = set()
    out = []
    said = sentences(answer)
    for s in said:
        if s in seen:
            out.append(s)
        seen.add(s)
    return Repeats(tuple(out), len(said))
