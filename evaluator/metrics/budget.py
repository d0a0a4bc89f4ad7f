"""What the top k costs a prompt (§7): repeated text and tokens.

Both are defined for every query, abstention queries included: they describe the
retrieved list, not the evidence.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from evaluator.metrics.base import Measure, Value
from evaluator.metrics.shown import Better, Shown
from evaluator.metrics.view import shared_chars

if TYPE_CHECKING:
    from evaluator.metrics.view import QueryView


class DuplicatePairs(Measure):
    """duplicate_pairs@k = |{(r, s) ⊂ top k, r ≠ s, doc(r) = doc(s) :
    |r ∩ s| / min(|r|, |s|) ≥ duplicate_threshold}|.
    """

    name = "duplicate_pairs@k"
    parameters = ("k", "duplicate_threshold")
    shown = Shown("dup pairs@k", "dup pairs", "{:.2f}", Better.LOWER)

    def value(self, view: QueryView) -> Value | None:
        threshold = view.settings.duplicate_threshold
        pairs = 0
        for a, b in combinations(view.top, 2):
            shorter = min(a.length, b.length)
            shared = shared_chars(a, b)
            pairs += shared > 0 and shared / shorter >= threshold
        return pairs


class PromptTokens(Measure):
    """prompt_tokens@k = Σ over top-k chunks r of tokens(prefix(r)) + tokens(text(r))."""

    name = "prompt_tokens@k"
    parameters = ("k",)
    shown = Shown("prompt tok@k", "prompt tok", "{:.0f}", Better.LOWER)

    def value(self, view: QueryView) -> Value | None:
        return view.tokens.total(view.top)
