"""The answer screen's text (§23) as styled Content: the answer with its citations drawn,
each check's value, the facts stated or not, what is unsupported, and the numbered sources.

A citation is drawn by what it cites: a source holding labelled evidence, a source holding
none, or no source at all (`[99]`). Each of the three has a text style as well as a role
colour, and each source's header says its standing in words, so a 16-colour terminal and a
black-and-white screenshot tell them apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from evaluator.generation.checks.text import CITATION
from evaluator.generation.run_file import AnswerRecord
from labeler.core.display import shown as safe
from labeler.tui.triage.answer_model import CHECK_WORDS, AnswerView, SourceView, value_text

HOLDS = "bold underline $success"
"""A citation of a source that holds labelled evidence."""
EMPTY = "bold italic $warning"
"""A citation of a source that holds none."""
UNKNOWN = "bold reverse $error"
"""A citation of a number no source has."""
EVIDENCE = "bold on $span-current"
"""Labelled evidence inside a source, as the query screen shades it."""
MUTED = "$text-muted"
STATED, MISSED = ("✓ ", "bold $success"), ("✗ ", "bold $error")


def citation_style(number: int, sources: Sequence[SourceView]) -> str:
    found = next((s for s in sources if s.number == number), None)
    if found is None:
        return UNKNOWN
    return HOLDS if found.evidence else EMPTY


def answer_text(text: str, sources: Sequence[SourceView]) -> Content:
    """The answer (through the display rule) with each `[n]` in its citation's style; a
    group `[1, 3]` takes the style of its weakest number."""
    said = safe(text)
    parts: list[str | tuple[str, str]] = []
    at = 0
    order = (UNKNOWN, EMPTY, HOLDS)
    for found in CITATION.finditer(said):
        numbers = [int(n) for n in found.group(1).replace(";", ",").split(",")]
        style = min((citation_style(n, sources) for n in numbers), key=order.index)
        parts += [said[at : found.start()], (found.group(0), style)]
        at = found.end()
    parts.append(said[at:])
    return Content.assemble(*parts)


def checks_line(record: AnswerRecord) -> Content:
    """Every check's value, side by side and never blended."""
    parts: list[Content] = []
    for check in record.checks:
        label = CHECK_WORDS.get(check.name, (check.name, ""))[0]
        parts.append(Content.assemble((label, MUTED), " ", (value_text(check.name, check.value),
                                                                "bold")))  # fmt: skip
    return Content(" · ").join(parts)


ABSTAIN = "an abstention query: no evidence exists, the right answer abstains"
"""Said where an answerable query's labelled facts are."""


def facts_content(record: AnswerRecord, abstain: bool = False) -> Content:
    if abstain:
        return Content.styled(ABSTAIN, "italic")
    if not record.facts:
        return Content.styled("no facts labelled for this query", MUTED)
    said = sum(f.stated for f in record.facts)
    lines = [Content.styled(f"facts: {said}/{len(record.facts)} stated", "bold")]
    for fact in record.facts:
        mark = STATED if fact.stated else MISSED
        words = " | ".join(safe(a, lines=False) for a in fact.alternatives)
        lines.append(Content.assemble("  ", mark, words))
    return Content("\n").join(lines)


def listed_content(record: AnswerRecord) -> Content:
    """What the checks list: unsupported items, repeated sentences, unknown citations."""
    lines = []
    for name, title in (("unsupported", "unsupported"), ("repeated_sentences", "repeated"),
                        ("citation_precision", "cites no source")):  # fmt: skip
        check = record.check(name)
        if check is None or not check.items:
            continue
        lines.append(Content.styled(f"{title}: {len(check.items)}", "bold"))
        lines += [Content.assemble("  • ", safe(i, lines=False)) for i in check.items[:50]]
        if len(check.items) > 50:
            lines.append(Content.styled(f"  … and {len(check.items) - 50:,} more", MUTED))
    return Content("\n").join(lines)


def body_content(view: AnswerView) -> Content:
    """The upper pane: outcome, checks, the answer, facts and what is listed."""
    record = view.record
    if record is None:
        return Content.styled(view.note or "no answer", MUTED)
    outcome = record.outcome + (" (from the answer cache)" if record.cached else "")
    head = Content.assemble(("answer: ", "bold"), (outcome, _outcome_style(record.outcome)))
    blocks = [head]
    if record.checks:
        blocks.append(checks_line(record))
    if record.answer:
        blocks.append(answer_text(record.answer, view.sources))
    if record.message:
        blocks.append(Content.styled(safe(record.message), "$error"))
    blocks.append(facts_content(record, view.abstain))
    listed = listed_content(record)
    if listed.plain:
        blocks.append(listed)
    return Content("\n\n").join(blocks)


def _outcome_style(outcome: str) -> str:
    return {"answered": "bold $success", "refused": "bold $warning"}.get(outcome, "bold $error")


def source_head(s: SourceView) -> Content:
    style = (HOLDS if s.evidence else EMPTY) if s.cited else ("bold" if s.evidence else MUTED)
    return Content.assemble((f"[{s.number}]", style), " ", safe(s.doc, lines=False),
                            (f" {s.start}–{s.end} · ", MUTED), (s.standing, style))  # fmt: skip


def source_text(s: SourceView) -> Content:
    """The source's text with the labelled evidence inside it shaded."""
    if s.text is None:
        return Content.styled("(text not shown: another corpus)", MUTED)
    parts: list[str | tuple[str, str]] = []
    at = 0
    for a, b in sorted(s.marks):
        a = max(a, at)
        if b <= a:
            continue
        parts += [s.text[at:a], (s.text[a:b], EVIDENCE)]
        at = b
    parts.append(s.text[at:])
    return Content.assemble(*parts)


def sources_content(view: AnswerView) -> Content:
    """The lower pane: the context as sent, numbered, each with its standing."""
    if view.record is None:
        return Content("")
    blocks = [Content.styled(f"context: {len(view.sources)} sources", "bold")]
    if view.note:
        blocks.append(Content.styled(view.note, "bold $error"))
    for s in view.sources:
        blocks.append(Content("\n").join([source_head(s), source_text(s)]))
    return Content("\n\n").join(blocks)
