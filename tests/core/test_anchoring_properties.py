"""Properties every proposal keeps, whatever the edit: candidates are real slices of the new
text, scored in [0, 1], ranked, distinct, above the floor, and never inside a grapheme."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.core.anchoring.candidates import FLOOR, propose
from labeler.core.anchoring.edges import splits
from labeler.core.anchoring.search import overlap
from labeler.core.text.graphemes import snap
from labeler.core.values import Span

WORDS = ["fee", "refund", "30", "days", "é", "x\u0301", "\U0001f469\u200d\U0001f4bb", "Net"]
sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(
    lambda ws: " ".join(ws) + "."
)
texts = st.lists(sentences, min_size=1, max_size=8).map(" ".join)


@st.composite
def edited_spans(draw: st.DrawFn) -> tuple[Span, str, str]:
    old = draw(texts)
    start = snap(old, draw(st.integers(0, len(old) - 1)), forward=False)
    end = snap(old, draw(st.integers(start + 1, min(len(old), start + 40))), forward=True)
    cut = draw(st.integers(0, len(old)))
    insert = draw(st.sampled_from(["", "Net 45 days. ", "\n\n", "x\u0301"]))
    drop = draw(st.integers(0, 12))
    new = old[:cut] + insert + old[cut + drop :]
    return Span.from_text(old, "doc.md", start, end), old, new


@settings(max_examples=60, deadline=None)
@given(edited_spans())
def test_candidates_are_slices_ranked_distinct_and_whole_graphemes(
    case: tuple[Span, str, str],
) -> None:
    span, old, new = case
    proposal = propose(span, old, new)
    assert proposal.orphaned == (not proposal.candidates)
    ranked = sorted(proposal.candidates, key=lambda c: (-c.score, c.start, c.end))
    assert list(proposal.candidates) == ranked
    for i, c in enumerate(proposal.candidates):
        assert 0 <= c.start < c.end <= len(new)
        assert new[c.start : c.end] == c.quote
        assert (c.kind == "exact") == (c.quote == span.quote)
        assert 0.0 <= c.score <= 1.0
        assert c.parts.quote >= FLOOR
        assert c.kind == "exact" or not (splits(new, c.start) or splits(new, c.end))
        others = proposal.candidates[:i]
        assert all(overlap((c.start, c.end), (o.start, o.end)) < 0.5 for o in others)
