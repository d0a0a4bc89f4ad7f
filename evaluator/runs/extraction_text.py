"""The extractor comparison in words (§22), for report.md and the terminal alike.

Per alternative: a table row of its spans' fates and its gained and lost queries, then each
span it broke (row without header, hyphen split, interleaved, lost, moved) and each query
it lost through the baseline's chunking, with why: evidence the text no longer holds, or
the cause the chunker comparison names. Names and ids pass the display rule.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaluator.extraction.evidence import MEANING, Fate
from evaluator.metrics.compare import Status
from evaluator.runs.extraction_record import FATES, AlternativeRecord, ExtractionRecord
from labeler.core.display import shown

BROKEN = tuple(f for f in FATES if f != Fate.KEPT)
"""Fates worth naming span by span, best first."""


def _cell(fate: str) -> str:
    return fate.replace("-", " ")


def head(found: ExtractionRecord) -> list[str]:
    """The section's opening: what was compared and how."""
    return [
        "## Extractors compared",
        "",
        f"The project's extraction is the baseline. Each alternative's spans were re-anchored "
        f"by the stale-span scoring (a span scoring at least {found.confidence:g} counts as "
        f"found; below, it is lost to retrieval), and its text cut and searched by "
        f"`{shown(found.chunked_by, lines=False)}`.",
    ]


COLUMNS = ("alternative", "extractor", *(_cell(f) for f in FATES), "lost to retrieval",
           "queries gained", "queries lost")  # fmt: skip
"""The comparison table's columns: spans by fate, then queries through the chunking."""


def rows(found: ExtractionRecord) -> list[list[str]]:
    """One row per alternative, under COLUMNS."""
    out = []
    for alt in found.alternatives:
        counts, comp = alt.counts, alt.comparison
        gained = "—" if comp is None else str(comp.overall.counts.gained)
        lost = "—" if comp is None else str(comp.overall.counts.lost)
        out.append([shown(alt.name, lines=False), describe(alt),
                    *(str(counts[f]) for f in FATES), str(alt.lost_to_retrieval), gained,
                    lost])  # fmt: skip
    return out


def table(found: ExtractionRecord) -> list[str]:
    """The comparison table in Markdown."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows(found)]


def describe(alt: AlternativeRecord) -> str:
    """`pdf:pypdfium2 headers=keep`."""
    settings = " ".join(f"{k}={v}" for k, v in alt.settings.items())
    return shown(f"{alt.extractor} {settings}".strip(), lines=False)


def details(alt: AlternativeRecord) -> Iterator[str]:
    """Bullets: what the alternative could not read, each span it broke, each query lost
    or gained through the chunking."""
    if not alt.extracted and not alt.failed:  # else "every span kept" would be claimed
        yield "- read no document: the corpus has no file this extractor reads, nothing compared"
        return
    for doc, why in alt.failed:
        yield f"- could not read {shown(doc, lines=False)}: {shown(why, lines=False)}"
    for fate in BROKEN:
        for s in (s for s in alt.spans if s.fate == fate):
            where = "lost to retrieval" if s.found is None else "found at {}–{}".format(*s.found)
            yield (f"- {_cell(fate)}: {s.query} span {s.index + 1} in "
                   f"{shown(s.doc, lines=False)} {s.start}–{s.end} (score {s.confidence:.2f}, "
                   f"{where})")  # fmt: skip
    if alt.comparison is None:
        return
    for status in (Status.LOST, Status.GAINED):
        for change in sorted(alt.comparison.with_status(status), key=lambda c: c.query):
            yield f"- query {status}: {change.query} — {_why(alt, change.query, change.cause)}"


def _why(alt: AlternativeRecord, query: str, cause: object) -> str:
    """Why a query changed: its evidence broken by the extraction, or the chunker's cause."""
    broken = [s for s in alt.spans if s.query == query and s.fate != Fate.KEPT]
    said = ", ".join(f"span {s.index + 1} {_cell(s.fate)}"
                     + (" (lost to retrieval)" if s.found is None else "")
                     for s in broken)  # fmt: skip
    if cause is not None and all(s.found is not None for s in broken):  # else: not the chunker
        said = f"{said}; {cause}" if said else str(cause)
    return said or "the text around its evidence changed"


def legend() -> str:
    """What each fate means."""
    return "; ".join(f"{_cell(f)}: {MEANING[Fate(f)]}" for f in FATES)


def extraction_md(found: ExtractionRecord) -> list[str]:
    """The report.md section."""
    lines = ["", *head(found), "", *table(found)]
    for alt in found.alternatives:
        lines += ["", f"### `{shown(alt.name, lines=False)}`: {describe(alt)}", ""]
        lines += list(details(alt)) or ["- every span kept, no query changed"]
    return [*lines, "", f"_Fates: {legend()}._"]
