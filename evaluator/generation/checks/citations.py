"""Citation alignment (§23): are the sources an answer cites the ones holding the labelled
evidence, and is every evidence group the context holds cited?

A source holds a span by the retrieval match rule (`metrics.view.covers`, the run's
coverage threshold), so "holds evidence" means here what it means for recall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaluator.generation.checks.text import CITATION
from evaluator.generation.prompt import Source
from evaluator.metrics.view import covers
from labeler.core.values import Span, evidence_groups


@dataclass(frozen=True)
class Cited:
    """The distinct source numbers an answer cites, in the order first cited."""

    valid: tuple[int, ...]
    """Numbers of sources the prompt had (1..n)."""
    unknown: tuple[int, ...]
    """Numbers of no source (`[99]` of five, `[0]`): listed, and never holding evidence."""


def citations(answer: str, sources: int) -> Cited:
    """The citations of `answer` for a prompt of `sources` numbered sources."""
    seen: dict[int, None] = {}
    for found in CITATION.finditer(answer):
        for part in found.group(1).replace(";", ",").split(","):
            seen[int(part)] = None
    return Cited(tuple(n for n in seen if 1 <= n <= sources),
                 tuple(n for n in seen if not 1 <= n <= sources))  # fmt: skip


@dataclass(frozen=True)
class CitationAlignment:
    """With C the distinct numbers cited (unknown ones included), E ⊆ C those whose source
    holds some labelled span, G the evidence groups some source of the prompt holds, and
    G_c ⊆ G the groups some *cited* source holds:

        citation_precision = |E| / |C|        (None when nothing is cited)
        citation_recall    = |G_c| / |G|      (None when the context holds no group)
    """

    name = "citation_alignment"
    cited: Cited
    supporting: tuple[int, ...]
    """E: cited sources that hold labelled evidence."""
    groups_in_context: int
    """|G|."""
    groups_cited: int
    """|G_c|."""

    @property
    def precision(self) -> float | None:
        n = len(self.cited.valid) + len(self.cited.unknown)
        return len(self.supporting) / n if n else None

    @property
    def recall(self) -> float | None:
        return self.groups_cited / self.groups_in_context if self.groups_in_context else None


def holding(source: Source, spans: Sequence[Span], threshold: float) -> tuple[int, ...]:
    """Indices of the spans `source` holds."""
    return tuple(i for i, s in enumerate(spans) if covers(source.chunk, s, threshold))


def citation_alignment(
    answer: str, sources: Sequence[Source], evidence: Sequence[Span], threshold: float
) -> CitationAlignment:
    cited = citations(answer, len(sources))
    held = {s.number: set(holding(s, evidence, threshold)) for s in sources}
    supporting = tuple(n for n in cited.valid if held[n])
    anywhere = set().union(*held.values()) if held else set()
    by_cited = set().union(*(held[n] for n in cited.valid)) if cited.valid else set()
    groups = evidence_groups(tuple(evidence))
    in_context = [g for g in groups if anywhere.intersection(g)]
    return CitationAlignment(cited, supporting, len(in_context),
                             sum(bool(by_cited.intersection(g)) for g in in_context))  # fmt: skip
