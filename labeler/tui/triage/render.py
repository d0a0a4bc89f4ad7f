"""The triage screens' text: boundary views, ranked lists and verdicts as styled Content.

Styles name theme roles (`$boundary-baseline`, `$span-current`), never colours, and every
role also has a glyph or a text style, so the two cut sets and the evidence stay apart in a
16-colour terminal and in a black-and-white screenshot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.content import Content

from evaluator.chunk import Chunk
from evaluator.metrics.causes import Cause, percent
from evaluator.runs.boundary import BASELINE_MARK as BASELINE_MARK  # shared glyphs
from evaluator.runs.boundary import CANDIDATE_MARK as CANDIDATE_MARK
from evaluator.runs.boundary import DocView
from labeler.core.display import masked
from labeler.core.display import shown as safe
from labeler.tui.triage.detail import QueryDetail, RankedRow, Side, SpanFate
from labeler.tui.widgets.document_view import alternatives_in

EVIDENCE = "bold on $span-current"
"""Bold as well as shaded: in 16 colours the shade can be the legend bar's own."""
ALTERNATIVE = "bold uu on $span-alternative"
"""Evidence that is one of several alternatives (§18), as the label screen draws it: a
double underline as well as its own shade."""
BASELINE = "bold $boundary-baseline"
CANDIDATE = "bold $boundary-candidate"
THROUGH = " reverse"
"""Added to a cut inside a span that no chunk of its side holds: the cut that broke it."""
HELD = "underline"
"""The range of the baseline chunk that held the evidence."""
MUTED = "$text-muted"

VERDICTS = {
    "hit": ("hit", "$success"),
    "crowded": ("CROWDED", "bold $warning"),
    "disappeared": ("DISAPPEARED", "bold $error"),
    "cut": ("CUT", "bold $error"),
    "split": ("SPLIT", "bold $warning"),
    "no signal": ("NO SIGNAL", "bold $warning"),
}
"""How each span verdict is written, and in which role."""


def short_doc(doc: str, width: int = 10) -> str:
    """`policies/shipping.md` → `shipping`: the ranked lists have a few columns to spare."""
    stem = doc.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem if len(stem) <= width else stem[: width - 1] + "…"


def _marks(offset: int, view: DocView, broke: tuple[bool, bool]) -> list[tuple[str, str]]:
    out = []
    if offset in view.baseline_cuts:
        out.append((BASELINE_MARK, BASELINE + (THROUGH if broke[0] else "")))
    if offset in view.candidate_cuts:
        out.append((CANDIDATE_MARK, CANDIDATE + (THROUGH if broke[1] else "")))
    return out


def _inside(offset: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(a < offset < b for a, b in ranges)


def boundary_content(
    view: DocView,
    text: str,
    held: Sequence[Chunk] = (),
    cut_baseline: Sequence[tuple[int, int]] = (),
    cut_candidate: Sequence[tuple[int, int]] = (),
    alternatives: Sequence[tuple[int, int]] = (),
) -> Content:
    """The window of `view`: evidence shaded, cuts marked, `held` chunk ranges underlined.

    `cut_baseline` and `cut_candidate` are the spans each side has no chunk for; a cut
    strictly inside one of them is the cut that broke it, and is drawn reversed. Evidence
    inside one of the `alternatives` ranges is drawn as an alternative.
    """
    parts: list[tuple[str, str] | str] = []
    for seg in view.segments:
        broke = (_inside(seg.start, cut_baseline), _inside(seg.start, cut_candidate))
        parts.extend(_marks(seg.start, view, broke))
        style = [_evidence_style(seg.start, seg.end, alternatives)] if seg.evidence else []
        if any(c.doc == view.doc and c.start <= seg.start and seg.end <= c.end for c in held):
            style.append(HELD)
        parts.append((masked(text[seg.start : seg.end]), " ".join(style)))
    parts.extend(_marks(view.end, view, (False, False)))
    return Content.assemble(*parts)


def _evidence_style(start: int, end: int, alternatives: Sequence[tuple[int, int]]) -> str:
    inside = any(a <= start and end <= b for a, b in alternatives)
    return ALTERNATIVE if inside else EVIDENCE


def legend(baseline: str, candidate: str, *, alternatives: bool = False) -> Content:
    """`▌ base  ┊ cand  evidence  held  ┊ broke it`, each in its own style; with
    `alternatives` (the query has some), `any of` after `evidence`."""
    either: list[tuple[str, str] | str] = [("any of", ALTERNATIVE), "  "] if alternatives else []
    return Content.assemble(
        (BASELINE_MARK, BASELINE), f" {safe(baseline)}  ", (CANDIDATE_MARK, CANDIDATE),
        f" {safe(candidate)}  ", ("evidence", EVIDENCE), "  ", *either,
        ("baseline chunk", HELD), "  ", (CANDIDATE_MARK, CANDIDATE + THROUGH), " cut that broke it",
    )  # fmt: skip


def detail_content(detail: QueryDetail, text_of: Callable[[str], str]) -> Content:
    """Every evidence document's window, each under a heading with its offsets."""
    held = [f.chunk for f in detail.baseline.fates if f.chunk is not None and f.verdict != "cut"]
    either = alternatives_in(detail.spans)
    parts: list[Content] = []
    for view in detail.views:
        heading = Content.styled(f"── {view.doc} {view.start}..{view.end}", MUTED)
        base_cut, cand_cut = (
            _cut_spans(detail, side, view.doc) for side in (detail.baseline, detail.candidate)
        )
        alts = [(s.start, s.end) for s in either if s.doc == view.doc]
        drawn = boundary_content(view, text_of(view.doc), held, base_cut, cand_cut, alts)
        parts += [heading, drawn]
    return Content("\n").join(parts)


def evidence_start(content: Content) -> int | None:
    """Where the first evidence character sits in the content's plain text."""
    starts = [span.start for span in content.spans
              if any(str(span.style) == e or str(span.style).startswith(e + " ")
                     for e in (EVIDENCE, ALTERNATIVE))]  # fmt: skip
    return min(starts, default=None)


def _cut_spans(detail: QueryDetail, side: Side, doc: str) -> list[tuple[int, int]]:
    """The spans this side holds in no chunk (cut, or split across chunks): a cut inside
    one of them broke it."""
    return [(s.start, s.end) for s, f in zip(detail.spans, side.fates, strict=True)
            if s.doc == doc and f.verdict in ("cut", "split")]  # fmt: skip


def verdict_content(fate: SpanFate, k: int, threshold: float) -> Content:
    """`CUT no chunk holds ≥80% of it (best 1658..2294 covers 77%)` and the like, short
    enough for one line at 80 columns; split in `Cause.said`'s words, coverage included."""
    word, style = VERDICTS[fate.verdict]
    where = "" if fate.chunk is None else f"{fate.chunk.start}..{fate.chunk.end}"
    if fate.verdict == "hit" and fate.rank is not None:
        why = f" rank {fate.rank} ≤ k={k}, chunk {where}"
    elif fate.verdict == "hit":
        together = "" if fate.coverage is None else f" ({percent(fate.coverage)})"
        why = f" in pieces: the top k={k} cover it together{together}"
    elif fate.verdict == "crowded":
        why = f" first match at rank {fate.rank} > k={k}, chunk {where}"
    elif fate.verdict == "disappeared":
        why = f" chunk {where} holds it, ranked below depth"
    elif fate.verdict == "split":
        why = f" {Cause.SPLIT.said(fate.coverage)}; no one chunk holds ≥{threshold:.0%}"
    elif fate.verdict == Cause.NO_SIGNAL:
        why = f" chunk {where} holds it; every top-k chunk scored 0 (no query word found)"
    else:
        best = "" if fate.chunk is None else f" (best {where} covers {fate.share:.0%})"
        why = f" no chunk holds ≥{threshold:.0%} of it{best}"
    return Content.assemble((word, style), why)


def fates_content(
    detail: QueryDetail,
    k: int,
    threshold: float,
    rules: tuple[str, str] = ("chunk", "union"),
    candidate_rules: tuple[str, str] | None = None,
) -> Content:
    """Per span: where it is, then per candidate what became of it under the declared rule
    (`rules[0]`, named in the screen's head) and, where the other rule says otherwise, a
    second line naming it. In a diff the candidate's run may declare the other rule:
    `candidate_rules` are its."""
    lines: list[Content] = []
    alternatives = alternatives_in(detail.spans)
    for n, span in enumerate(detail.spans, 1):
        size = span.end - span.start
        either = (
            ("", "")
            if span.group is None or span not in alternatives
            else (f" · any-of {span.group}", "italic")
        )
        place = detail.places[n - 1] if n <= len(detail.places) else ""
        where = f", {safe(place)}" if place else ""  # §22: its page in a PDF
        lines.append(Content.assemble((f"e{n} ", MUTED), f"{safe(span.doc)} {span.start}.."
                                      f"{span.end} ({size} ch{where})", either))  # fmt: skip
        for mark, style, side, (_, other_rule) in (
            (BASELINE_MARK, BASELINE, detail.baseline, rules),
            (CANDIDATE_MARK, CANDIDATE, detail.candidate, candidate_rules or rules),
        ):
            fate = side.fates[n - 1]
            other = side.other_fates[n - 1] if side.other_fates else None
            verdict = verdict_content(fate, k, threshold)
            lines.append(Content.assemble("  ", (mark, style), f" {safe(side.name)}: ", verdict))
            if other is not None and other.verdict != fate.verdict:  # the rules disagree
                lines.append(Content.assemble("    ", (f"under {other_rule}: ", MUTED),
                                              verdict_content(other, k, threshold)))  # fmt: skip
        said = detail.anchors[n - 1] if n <= len(detail.anchors) else ()
        lines += [Content.styled(f"  {safe(line)}", "$warning") for line in said]
    return Content("\n").join(lines)


def ranked_content(side: Side, k: int, depth: int) -> Content:
    """Rank, score, chunk offsets and matched spans; first matches beyond k after a rule;
    then each missed span in its cause's own words."""
    lines = [_row(r) for r in side.top]
    if side.beyond:
        lines.append(Content.styled(f"{'┄' * 3} below k={k} {'┄' * 20}", "$warning"))
        lines += [_row(r) for r in side.beyond]
    for n, fate in enumerate(side.fates, 1):
        if fate.verdict == "split":
            lines.append(Content.styled(f"  — e{n}: split across the top {k}", "$warning"))
        elif fate.verdict == "disappeared":
            lines.append(Content.styled(f"  — e{n}: no match within depth {depth}", "$error"))
        elif fate.verdict == "cut":
            lines.append(Content.styled(f"  — e{n}: cut, no chunk holds it", "$error"))
        elif fate.verdict == Cause.NO_SIGNAL:
            lines.append(
                Content.styled(f"  — e{n}: no signal, every top-{k} score is 0", "$warning")
            )
    return Content("\n").join(lines)


def _row(row: RankedRow) -> Content:
    chunk = f"{short_doc(row.chunk.doc)} {row.chunk.start}..{row.chunk.end}"
    if row.retrieved is not None:  # §18: the retrieved chunk, then what was sent for it
        chunk = f"{row.retrieved.start}..{row.retrieved.end} → {chunk}"
    matched = " ".join(f"e{n}" for n in row.matches)
    partial = " ".join(f"e{n}~{s:.0%}" for n, s in row.partial)
    return Content.assemble(
        f"{row.rank:>3} {row.score:6.3f} {chunk:<21} ",
        (matched, "bold $success"),
        (" " if matched and partial else "") + partial,
    )
