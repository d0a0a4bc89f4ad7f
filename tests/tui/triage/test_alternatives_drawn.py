"""The triage query screen draws alternatives (§18) as the label screen does: the copies of
one fact in their own style over the evidence, the fates naming the group, the legend
saying what the style means only when the query has alternatives."""

from __future__ import annotations

from dataclasses import replace

from textual.content import Content

from evaluator.runs.boundary import doc_view
from labeler.core.values import Span
from labeler.tui.triage.detail import QueryDetail, Side, SpanFate
from labeler.tui.triage.render import (
    ALTERNATIVE,
    EVIDENCE,
    detail_content,
    evidence_start,
    fates_content,
    legend,
)

FACT = "Refunds are paid within 14 days."
TEXTS = {"x.md": f"Intro.\n{FACT}\n", "y.md": f"Other words.\n{FACT}\nEnd.\n"}


def span(doc: str, start: int, end: int, group: int | None = None) -> Span:
    return replace(Span.from_text(TEXTS[doc], doc, start, end), group=group)


def detail(spans: tuple[Span, ...]) -> QueryDetail:
    views = tuple(
        doc_view(d, TEXTS[d], [(s.start, s.end) for s in spans if s.doc == d], [], [])
        for d in dict.fromkeys(s.doc for s in spans)
    )
    hit = SpanFate("hit", 1, None, 1.0)
    side = Side("base", (), (), (hit,) * len(spans))
    return QueryDetail("q-0001", None, "lost", "cut", "other", (), spans, views, side,
                       replace(side, name="cand"))  # fmt: skip


COPIES = (span("x.md", 7, 39, group=1), span("y.md", 13, 45, group=1), span("x.md", 0, 6))
"""One fact in two documents (group 1), and "Intro." as a span of its own."""


def styled(content: Content) -> dict[str, str]:
    """Each styled run of text and its style."""
    plain = content.plain
    return {plain[s.start : s.end]: str(s.style) for s in content.spans}


def test_copies_are_drawn_as_alternatives_and_a_span_of_its_own_as_evidence() -> None:
    drawn = styled(detail_content(detail(COPIES), TEXTS.__getitem__))
    assert drawn[FACT] == ALTERNATIVE
    assert drawn["Intro."] == EVIDENCE


def test_a_group_of_one_is_drawn_as_plain_evidence() -> None:
    alone = (span("x.md", 7, 39, group=2), span("x.md", 0, 6))
    content = detail_content(detail(alone), TEXTS.__getitem__)
    assert set(styled(content).values()) - {"$text-muted"} == {EVIDENCE}  # and headings


def test_the_screen_scrolls_to_evidence_that_is_all_alternatives() -> None:
    content = detail_content(detail(COPIES[:2]), TEXTS.__getitem__)
    assert evidence_start(content) == content.plain.index(FACT)


def test_fates_name_the_group_and_the_legend_says_any_of_only_when_there_are_some() -> None:
    lines = fates_content(detail(COPIES), 5, 0.8).plain.splitlines()
    heads = [line for line in lines if line.startswith("e")]
    assert heads == [
        "e1 x.md 7..39 (32 ch) · any-of 1",
        "e2 y.md 13..45 (32 ch) · any-of 1",
        "e3 x.md 0..6 (6 ch)",
    ]
    assert "any of" in legend("base", "cand", alternatives=True).plain
    assert "any of" not in legend("base", "cand").plain
