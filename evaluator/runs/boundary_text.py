"""The boundary view as text (§9): the canonical text left intact, cuts on ruler lines.

Each line of the window is printed as it is (so it reads, and greps, as text), wrapped at
word boundaries when a width is given; beneath it a ruler line marks the evidence (`▔`)
and each cut at its column (`▌` baseline, `┊` candidate, `╫` both). Styles are rich
styles: colour on a terminal, nothing when piped.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.text import Text

from evaluator.chunk import Chunk
from evaluator.runs.boundary import BASELINE_MARK, CANDIDATE_MARK, PARENT_MARK, DocView
from evaluator.runs.model_queries import EvidenceRef, QueryResult

EVIDENCE_RULE = "▔"
"""Drawn on the ruler under each evidence character."""
STYLES = {
    BASELINE_MARK: "bold magenta",
    CANDIDATE_MARK: "bold cyan",
    "╫": "bold yellow",
    PARENT_MARK: "bold green",
}
"""How each ruler glyph is coloured on a terminal."""
EVIDENCE_STYLE = "bold"
BROKE_STYLE = "reverse"
"""Added to a cut strictly inside a span that its side holds in no chunk: the cut that broke it."""
SENT_WORD = "sent"
"""Marks the row under a retrieved chunk that says what was sent for it (§18)."""


def display_lines(text: str, start: int, end: int, width: int | None) -> Iterator[tuple[int, int]]:
    """(start, end) of each line of text[start:end], wrapped at spaces to `width`."""
    at = start
    while at <= end:
        newline = text.find("\n", at, end)
        stop = end if newline < 0 else newline
        yield from _wrap(text, at, stop, width)
        if newline < 0:
            return
        at = newline + 1


def _wrap(text: str, start: int, end: int, width: int | None) -> Iterator[tuple[int, int]]:
    while width is not None and end - start > width:
        space = text.rfind(" ", start, start + width + 1)
        cut = space + 1 if space > start else start + width
        yield start, cut
        start = cut
    yield start, end


def ruler(view: DocView, evidence: Sequence[tuple[int, int]], line: tuple[int, int],
          broke: set[int]) -> Text | None:  # fmt: skip
    """The ruler under one display line; None when it would be blank."""
    start, end = line
    out = Text()
    for offset in range(start, end + 1):
        mark = view.mark_at(offset)
        if mark:
            style = STYLES[mark] + (f" {BROKE_STYLE}" if offset in broke else "")
            out.append(mark, style)
        elif offset < end and any(s <= offset < e for s, e in evidence):
            out.append(EVIDENCE_RULE, "green")
        else:
            out.append(" ")
    return out if out.plain.strip() else None


def parent_row(view: DocView, line: tuple[int, int]) -> Text | None:
    """The row under a ruler marking where a sent parent starts or ends (§18); None when no
    parent edge falls on the line. Children nest in parents, so each edge is also a cut."""
    start, end = line
    marks = [PARENT_MARK if x in view.parent_edges else " " for x in range(start, end + 1)]
    if PARENT_MARK not in marks:
        return None
    return Text("".join(marks).rstrip(), STYLES[PARENT_MARK])


def window(view: DocView, text: str, evidence: Sequence[tuple[int, int]], broke: set[int],
           width: int | None) -> list[Text]:  # fmt: skip
    """The window's lines, each followed by its ruler."""
    lines: list[Text] = []
    for start, end in display_lines(text, view.start, view.end, width):
        shown = Text(text[start:end])
        for s, e in evidence:
            if s < end and e > start:
                shown.stylize(EVIDENCE_STYLE, max(s, start) - start, min(e, end) - start)
        lines.append(shown)
        if (rule := ruler(view, evidence, (start, end), broke)) is not None:
            lines.append(rule)
        if (row := parent_row(view, (start, end))) is not None:
            lines.append(row)
    return lines


def holder(chunks: Sequence[Chunk], span: EvidenceRef) -> Chunk | None:
    """A chunk of one side that holds the whole span, if any."""
    return next((c for c in chunks if c.doc == span.doc and c.start <= span.start
                 and span.end <= c.end), None)  # fmt: skip


def inner_cuts(chunks: Sequence[Chunk], span: EvidenceRef) -> list[int]:
    """Where one side's chunks start or end strictly inside the span."""
    found = {x for c in chunks if c.doc == span.doc for x in (c.start, c.end)}
    return sorted(x for x in found if span.start < x < span.end)


def fate_words(name: str, chunks: Sequence[Chunk], span: EvidenceRef) -> str:
    """`tok128-ov0 cuts it at 2611` or `tok128-ov32 holds it whole in 2200..2950`."""
    held = holder(chunks, span)
    if held is not None:
        return f"{name} holds it whole in {held.start}..{held.end}"
    at = ", ".join(str(x) for x in inner_cuts(chunks, span))
    return f"{name} cuts it at {at}"


def coverage_cells(entry: tuple[str, str, int, int, float], spans: Sequence[EvidenceRef]) -> str:
    """Each span this chunk overlaps and the share of it the chunk holds: `e1 50%`."""
    _, doc, start, end, _ = entry
    cells = []
    for n, s in enumerate(spans, 1):
        inside = min(end, s.end) - max(start, s.start)
        if s.doc == doc and inside > 0:
            cells.append(f"e{n} {inside / (s.end - s.start):.0%}")
    return " ".join(cells)


def where_text(entry: tuple[str, str, int, int, float]) -> str:
    """`refunds.md 120..480`: a ranked chunk's place."""
    return f"{entry[1]} {entry[2]}..{entry[3]}"


def ranked_lines(
    result: QueryResult, k: int, spans: Sequence[EvidenceRef], where_width: int = 32
) -> list[str]:
    """Rows `rank score doc start..end  e1 50%` for one candidate's top k; the place column
    `where_width` wide (the widest of both lists), so the coverage column never shifts."""
    lines = []
    for rank, entry in enumerate(result.ranked[:k], 1):
        chunk_id, _, _, _, score = entry
        where = where_text(entry).ljust(where_width)
        lines.append(f"  {rank:>3}  {score:6.3f}  {where} {coverage_cells(entry, spans):<14}"
                     f" {chunk_id}".rstrip())  # fmt: skip
        sent = result.sent_at(rank)
        if sent is not None:  # §18: the retrieved chunk above, what the prompt got here
            place = where_text(sent).ljust(where_width)
            lines.append(f"       {SENT_WORD:>6}  {place} {coverage_cells(sent, spans):<14}"
                         f" {sent.chunk_id}".rstrip())  # fmt: skip
    return lines
