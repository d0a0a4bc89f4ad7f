"""αu over a set of queries (§11, issue 29): one continuum, as DKPro Agreement computes it.

Two annotators, eight queries; five agree exactly, two differ by 10-12 characters on long
documents, and on q-6 each marks 6 characters of a 24-character document the other left
alone. The reference figures are DKPro Agreement's own output (dkpro-statistics f7f4f89,
`KrippendorffAlphaUnitizingAgreement`, compiled from source with javac 17; the driver is
tests/core/dkpro/RunAlphaU.java, fed the studies `dkpro_studies` writes): one study per
document (each query a category), and one study with the documents end to end.

spanlab used to average Do and De over (pair, document) continua of different lengths:
the 24-character document's Do and De, each normalised by its own tiny L, outweighed the
rest and the set's αu came out 0.022 against DKPro's 0.99960.
"""

from __future__ import annotations

from itertools import accumulate

import pytest

from labeler.core.agreement import Report, agreement, disagreement, pooled
from labeler.core.store import QueryRow, Version
from labeler.core.values import Boundary, Span, Status

LENGTHS = {"big1.md": 4200, "big2.md": 3100, "big3.md": 2600, "tiny.md": 24}
TEXTS = {d: "".join(chr(97 + (i * 7 + len(d)) % 26) for i in range(n)) for d, n in LENGTHS.items()}
# query -> (alice's spans, bob's spans), each (doc, start, end)
PLAN = {
    "q-1": ([("big1.md", 100, 180)], [("big1.md", 100, 180)]),
    "q-2": ([("big1.md", 2000, 2300)], [("big1.md", 2000, 2300)]),
    "q-3": ([("big2.md", 500, 620)], [("big2.md", 500, 620)]),
    "q-4": ([("big3.md", 40, 400)], [("big3.md", 40, 400)]),
    "q-5": ([("big2.md", 2900, 3000)], [("big2.md", 2900, 3000)]),
    "q-6": ([("big1.md", 1000, 1300), ("tiny.md", 2, 8)],
            [("big1.md", 1000, 1300), ("tiny.md", 12, 18)]),
    "q-7": ([("big2.md", 1000, 1200)], [("big2.md", 1010, 1200)]),
    "q-8": ([("big3.md", 1500, 1700)], [("big3.md", 1500, 1712)]),
}  # fmt: skip

# DKPro's (Do, De, αu) as RunAlphaU prints them.
DKPRO_BY_DOC = {
    "big1.md": (0.0, 0.00575384172464, 1.0),
    "big2.md": (3.46860908776e-06, 0.00373439370499, 0.999071172093),
    "big3.md": (1.06508875740e-05, 0.0195725978228, 0.999455826576),
    "tiny.md": (0.125000000000, 0.0602610807529, -1.07430730479),
}
DKPRO_END_TO_END = (4.01073145832e-07, 0.000991499522145, 0.999595488312)


def version(who: str, spans: list[tuple[str, int, int]]) -> Version:
    return Version(who, False, tuple(Span.from_text(TEXTS[d], d, s, e) for d, s, e in spans))


def report() -> Report:
    rows = [QueryRow(q, "?", False, Boundary.CONTROL, (), "", Status.LABELLED, "", 0) for q in PLAN]
    versions = {q: {"alice": version("alice", a), "bob": version("bob", b)}
                for q, (a, b) in PLAN.items()}  # fmt: skip
    return agreement(rows, versions, LENGTHS)


def dkpro_studies() -> str:
    """The studies RunAlphaU reads: per document, then the documents end to end."""

    def units(offset: dict[str, int], only: str | None) -> list[str]:
        return [f"unit {r} {offset[d] + s} {e - s} {q}" for q, sides in PLAN.items()
                for r, side in enumerate(sides)
                for d, s, e in side if only in (None, d)]  # fmt: skip

    docs = sorted(LENGTHS)
    out = [
        line
        for d in docs
        for line in (f"study doc:{d} 2 {LENGTHS[d]}", *units(dict.fromkeys(docs, 0), d), "end")
    ]
    start = dict(zip(docs, accumulate((LENGTHS[d] for d in docs[:-1]), initial=0), strict=True))
    out += [f"study end-to-end 2 {sum(LENGTHS.values())}", *units(start, None), "end"]
    return "\n".join(out) + "\n"


def test_each_document_on_its_own_is_dkpros_figure() -> None:
    found = report().by_document
    for doc, (_, _, alpha) in DKPRO_BY_DOC.items():
        assert found[doc].alpha == pytest.approx(alpha, abs=1e-9), doc


def test_the_set_is_one_continuum_with_the_documents_end_to_end_as_dkpro() -> None:
    overall = report().overall
    assert overall is not None and overall.basis is not None
    assert overall.alpha == pytest.approx(DKPRO_END_TO_END[2], abs=1e-9)
    assert (overall.basis.documents, overall.basis.length) == (4, 9924)
    assert (overall.basis.units, overall.basis.categories) == (18, 8)
    assert overall.f1 == pytest.approx(0.991, abs=5e-4)
    assert overall.exact == 5 / 8


def test_the_old_mean_over_documents_let_the_tiny_one_decide() -> None:
    """What spanlab printed before: mean Do / mean De over (pair, document) continua."""

    def on(doc: str, side: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
        return [(s, e) for d, s, e in side if d == doc]

    parts = [disagreement([on(doc, a), on(doc, b)], LENGTHS[doc])
             for a, b in PLAN.values() for doc in sorted({d for d, _, _ in a + b})]  # fmt: skip
    assert round(pooled(parts).alpha or 0.0, 3) == 0.022


def test_the_studies_file_is_what_the_reference_figures_were_computed_on() -> None:
    text = dkpro_studies()
    assert text.count("study ") == 5
    assert "study end-to-end 2 9924" in text
    assert "unit 0 9902 6 q-6" in text and "unit 1 9912 6 q-6" in text


def test_the_report_says_what_alpha_rests_on() -> None:
    overall = report().overall
    assert overall is not None and overall.basis is not None
    assert overall.basis.said == (
        "rests on 18 units of 8 pairs on 4 documents end to end (9,924 code points), one "
        "DKPro study; per document below, where a short one swings on a few characters"
    )
