"""Span agreement between annotators of double-annotated queries (§11).

`pairs` compares two versions of one query (overlap F1, exact spans, abstention);
`unitizing` is Krippendorff's αu; `report` gathers both by pair, slice, pattern and
document. A new agreement measure goes in a module of its own here.
"""

from labeler.core.agreement.pairs import PairAgreement, compare
from labeler.core.agreement.report import NO_DOUBLE, Report, Summary, agreement, agreement_seen
from labeler.core.agreement.unitizing import Disagreement, disagreement, pooled

__all__ = [
    "NO_DOUBLE", "Disagreement", "PairAgreement", "Report", "Summary", "agreement",
    "agreement_seen", "compare", "disagreement", "pooled",
]  # fmt: skip
