"""Evidence measures (§7): did the top k, or the index at all, carry the labelled spans?

A chunk matches a span when it lies in the same document and contains the span or covers
at least `coverage_threshold` of its characters. Undefined (None) for abstention queries,
which therefore stay out of every recall denominator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from evaluator.metrics.base import Measure, Value
from evaluator.metrics.shown import Better, Shown

if TYPE_CHECKING:
    from evaluator.metrics.view import QueryView
    from labeler.core.values import Span


class EvidenceRecall(Measure):
    """evidence_recall@k = |{g ∈ G : some top-k chunk matches some e ∈ g}| / |G|, G the
    groups of alternatives (§18; a span without a group is a group of its own)."""

    name = "evidence_recall@k"
    parameters = ("k", "coverage_threshold")
    shown = Shown("recall@k", "recall@k", "{:.3f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        if not view.answerable:
            return None
        return sum(view.group_matched_in_k) / len(view.groups)


class Hit(Measure):
    """hit@k = 1 when every group g ∈ G has an alternative matched by a top-k chunk, else 0
    (mean: hit rate)."""

    name = "hit@k"
    parameters = ("k", "coverage_threshold")
    shown = Shown("hit@k", "hit@k", "{:.3f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        return all(view.group_matched_in_k) if view.answerable else None


class DocumentHit(Measure):
    """document_hit@k = 1 when every group has an alternative e with doc(e) ∈ {doc(r) : r ∈
    top k}, else 0 (without groups: every evidence document is retrieved)."""

    name = "document_hit@k"
    parameters = ("k",)
    shown = Shown("doc hit@k", "doc hit", "{:.3f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        if not view.answerable:
            return None
        docs = {c.doc for c in view.top}
        return all(any(view.spans[i].doc in docs for i in g) for g in view.groups)


class OracleRecall(Measure):
    """oracle_recall = |{g ∈ G : some chunk anywhere in the index matches some e ∈ g}| / |G|.

    Ranking cannot beat it: a span it misses was cut by a boundary.
    """

    name = "oracle_recall"
    parameters = ("coverage_threshold",)
    shown = Shown("oracle recall", "oracle", "{:.3f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        if not view.answerable:
            return None
        return sum(view.group_matchable) / len(view.groups)


class EvidenceCoverage(Measure):
    """evidence_coverage@k(e) = |e ∩ ∪{r ∈ top k : doc(r) = doc(e)}| / |e| (per span).

    The per-query value lists one share per span in evidence order. A span that no top-k
    chunk matches alone but whose coverage reaches `coverage_threshold` is `split`: every
    part was retrieved, in pieces. The aggregate pools the spans: their mean coverage.
    """

    name = "evidence_coverage@k"
    parameters = ("k",)
    shown = Shown("evidence coverage@k", "cover@k", "{:.3f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        return view.coverage_in_k if view.answerable else None

    def reduce(self, values: Sequence[Value]) -> float | None:
        shares = [s for v in values if isinstance(v, tuple) for s in v if s is not None]
        return sum(shares) / len(shares) if shares else None


class UniqueEvidence(Measure):
    """unique_evidence@k = |{g ∈ G : some top-k chunk matches some e ∈ g}|: alternatives of
    one group count once; a span without a group counts by its (doc, start, end)."""

    name = "unique_evidence@k"
    parameters = ("k", "coverage_threshold")
    shown = Shown("unique evid@k", "unique evid", "{:.3f}", Better.HIGHER)

    def value(self, view: QueryView) -> Value | None:
        if not view.answerable:
            return None
        matched = zip(view.groups, view.group_matched_in_k, strict=True)
        return len({_key(view.spans[g[0]]) for g, m in matched if m})


def _key(s: Span) -> tuple[object, ...]:
    return (s.doc, s.start, s.end) if s.group is None else ("group", s.group)
