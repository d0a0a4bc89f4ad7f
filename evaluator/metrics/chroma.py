"""The research metrics of Chroma's "Evaluating Chunking Strategies for Retrieval" (2024).

Formulas follow its reference code, chunking_evaluation/evaluation_framework/
base_evaluation.py, which is the arbiter where prose and code differ (§7). Ranges are
code-point offsets; I = ∪ (r ∩ e) over same-document pairs, intersections closed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evaluator.metrics.base import Measure, Value
from evaluator.metrics.shown import Better, Shown

if TYPE_CHECKING:
    from evaluator.metrics.view import QueryView


class ChromaRecall(Measure):
    """chroma_recall = |I| / Σ|e|, I over the top k chunks.

    `recall_score = numerator_value / recall_denominator` in
    `_scores_from_dataset_and_retrievals`.
    """

    name = "chroma_recall"
    parameters = ("k",)
    shown = Shown("Chroma recall", "C-recall", "{:.3f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        if not view.answerable:
            return None
        o = view.retrieved_overlap
        return o.intersected / o.evidence


class ChromaPrecision(Measure):
    """chroma_precision = |I| / Σ|r| over all k retrieved chunks, any document.

    A sum, not a union, so overlapping chunks count twice: `precision_denominator =
    sum_of_ranges(metadatas[:k])`. None when nothing was retrieved (the reference
    would divide by zero).
    """

    name = "chroma_precision"
    parameters = ("k",)
    shown = Shown("Chroma precision", "C-prec", "{:.4f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        o = view.retrieved_overlap
        if not view.answerable or o.chunks == 0:
            return None
        return o.intersected / o.chunks


class ChromaIoU(Measure):
    """chroma_iou = |I| / (Σ|r| + Σ_e |e \\ ∪ intersecting r|).

    `iou_denominator = precision_denominator + sum_of_ranges(unused_highlights)`.
    """

    name = "chroma_iou"
    parameters = ("k",)
    shown = Shown("IoU", "IoU", "{:.4f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        if not view.answerable:
            return None
        o = view.retrieved_overlap
        return o.intersected / (o.chunks + o.uncovered)


class ChromaPrecisionOmega(Measure):
    """chroma_precision_omega = |I_Ω| / |∪ R_Ω ∪ unused|, independent of ranking.

    R_Ω is every chunk of the index whose closed range meets some e (a chunk that only
    touches a span is in R_Ω and widens the union); unused is the evidence R_Ω leaves
    uncovered. 0 when no chunk meets the evidence. `ioc_score` in `_full_precision_score`.
    """

    name = "chroma_precision_omega"
    parameters = ()
    shown = Shown("precision Ω", "P-Ω", "{:.3f}", Better.HIGHER, most=1.0)

    def value(self, view: QueryView) -> Value | None:
        if not view.answerable:
            return None
        o = view.omega_overlap
        return o.intersected / o.chunks if o.touched else 0.0
