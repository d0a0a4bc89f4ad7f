"""§12 re-anchoring: 10,000 stale spans across 1,000 edited documents, target ≤ 10 s.

Documents are generated policy prose (5–10 KB, templated, so phrasing repeats as it does in
real policies) and edited the way people edit: a paragraph inserted at the top (so every
span is stale), sentences reworded, numbers changed, sentences deleted or duplicated. The
side-by-side baseline is one plain `str.find` of every quote over its new document.
Run: pytest tests/benchmarks -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass

from labeler.core.anchoring.candidates import Proposal, propose_many
from labeler.core.values import Span, SpanState

N_DOCS = 1_000
SPANS_PER_DOC = 10
WHO = (
    "The customer",
    "A subscriber",
    "The account owner",
    "Each member",
    "The reseller",
    "An administrator",
    "The billing contact",
    "A guest user",
    "The workspace owner",
)
DOES = (
    "may request",
    "must submit",
    "can cancel",
    "will receive",
    "should review",
    "is entitled to",
    "may not transfer",
    "must confirm",
    "can download",
)
WHAT = (
    "a refund",
    "a written notice",
    "the annual plan",
    "an invoice",
    "the usage report",
    "a credit note",
    "the data export",
    "the signed agreement",
    "a replacement key",
)
WHEN = (
    "within {n} days of purchase",
    "after {n} days",
    "before the renewal date",
    "no later than {n} business days after the request",
    "once every {n} months",
    "unless the account is suspended for more than {n} days",
    "at any time",
)
REWORD = {
    "may request": "is allowed to ask for",
    "must submit": "has to send",
    "can cancel": "is able to end",
    "will receive": "gets",
    "should review": "reads",
    "is entitled to": "has a right to",
    "may not transfer": "cannot hand over",
    "must confirm": "needs to approve",
    "can download": "may fetch",
}
EDITS = ("shift", "shift", "shift", "reword", "number", "delete", "duplicate")


@dataclass(frozen=True)
class Case:
    """One stale span, the document pair it lives in, and where it truly went (if known)."""

    span: Span
    """The span as drawn on the old text."""
    old: str
    """The old canonical text."""
    new: str
    """The edited text."""
    edit: str
    """What happened to the span's sentence."""
    truth: tuple[int, int] | None
    """Offsets of the edited sentence in the new text; None when it was deleted."""


def sentence(rng: random.Random) -> str:
    when = rng.choice(WHEN).format(n=rng.randint(2, 90))
    return f"{rng.choice(WHO)} {rng.choice(DOES)} {rng.choice(WHAT)} {when}."


def paragraphs(rng: random.Random) -> list[list[str]]:
    size, length, paras = rng.randint(5_000, 10_000), 0, list[list[str]]()
    while length < size:
        paras.append([sentence(rng) for _ in range(rng.randint(3, 6))])
        length += sum(len(s) + 1 for s in paras[-1]) + len("## Section 10\n\n")
    return paras


def render(paras: list[list[str]]) -> tuple[str, dict[int, tuple[int, int]]]:
    """The text and, for every sentence tagged with an id, its offsets."""
    out, where, at = list[str](), dict[int, tuple[int, int]](), 0
    for i, para in enumerate(paras):
        head = f"## Section {i + 1}\n\n"
        out.append(head)
        at += len(head)
        for j, s in enumerate(para):
            sid, _, body = s.partition("\x00") if "\x00" in s else ("", "", s)
            if sid:
                where[int(sid)] = (at, at + len(body))
            out.append(body + (" " if j < len(para) - 1 else "\n\n"))
            at += len(out[-1])
    return "".join(out), where


def edited(rng: random.Random, body: str, edit: str) -> str | None:
    if edit == "reword":
        verb = next(v for v in REWORD if v in body)
        return body.replace(verb, REWORD[verb]).replace(" days", " calendar days")
    if edit == "number":
        return re.sub(r"\d+", lambda m: str(int(m.group()) + rng.randint(1, 9)), body)
    return None if edit == "delete" else body


def document_cases(rng: random.Random, doc: str) -> list[Case]:
    """Ten spans on one generated document, and the edited document they went stale in."""
    paras = paragraphs(rng)
    slots = rng.sample([(i, j) for i, p in enumerate(paras) for j in range(len(p))], SPANS_PER_DOC)
    for sid, (i, j) in enumerate(slots):
        paras[i][j] = f"{sid}\x00{paras[i][j]}"  # tagged so that render reports its offsets
    old, old_at = render(paras)
    edits = [rng.choice(EDITS) for _ in slots]
    new, new_at = render(edit_document(rng, paras, slots, edits))
    cases = []
    for sid, (start, end) in old_at.items():
        if rng.random() < 0.3:  # a clause rather than the whole sentence
            start = old.index(" ", start) + 1
        span = Span.from_text(old, doc, start, end)
        cases.append(
            Case(span, old, new, edits[sid], truth(span, new, new_at.get(sid), edits[sid]))
        )
    return cases


def edit_document(
    rng: random.Random, paras: list[list[str]], slots: list[tuple[int, int]], edits: list[str]
) -> list[list[str]]:
    """A new paragraph on top, then each tagged sentence edited as drawn."""
    new_paras = [[sentence(rng) for _ in range(3)]] + [list(p) for p in paras]
    for sid, (i, j) in enumerate(slots):
        body = new_paras[i + 1][j].partition("\x00")[2]
        if edits[sid] == "duplicate":
            new_paras[rng.randrange(1, len(new_paras))].append(body)
        after = edited(rng, body, edits[sid])
        new_paras[i + 1][j] = f"{sid}\x00{after}" if after is not None else ""
    return [[s for s in p if s] for p in new_paras]


def truth(
    span: Span, new: str, sentence_at: tuple[int, int] | None, edit: str
) -> tuple[int, int] | None:
    """Where the span belongs now: its whole sentence, or for a clause of a sentence that
    was not edited, the clause inside it; None when unknown or deleted."""
    if sentence_at is None or span.prefix.endswith((". ", "\n")) or not span.start:
        return sentence_at
    if edit not in ("shift", "duplicate"):
        return None
    return new.index(span.quote, sentence_at[0]), sentence_at[1]


def generate(seed: int = 11) -> list[Case]:
    """N_DOCS × SPANS_PER_DOC stale spans; the rare span that edits left valid by chance
    (deletions above it cancelling the insertion) is dropped and made up for."""
    rng, cases, d = random.Random(seed), list[Case](), 0
    while len(cases) < N_DOCS * SPANS_PER_DOC:
        drawn = document_cases(rng, f"doc-{d:04}.md")
        cases += [c for c in drawn if c.span.state_in(c.new) is SpanState.STALE]
        d += 1
    return cases[: N_DOCS * SPANS_PER_DOC]


def accuracy(cases: list[Case], proposals: list[Proposal], edit: str) -> str:
    """How often the true place of one edit kind's spans is the best candidate, and listed."""
    pairs = [(c, p) for c, p in zip(cases, proposals, strict=True) if c.edit == edit]
    if edit == "delete":
        hits = sum(p.orphaned for _, p in pairs)
        weak = sorted(p.candidates[0].parts.quote for _, p in pairs if p.candidates)
        median = weak[len(weak) // 2] if weak else 0.0
        return (
            f"{edit}: {hits}/{len(pairs)} orphaned; the rest offer a look-alike sentence"
            f" (median quote similarity {median:.2f})"
        )
    known = [(c, p) for c, p in pairs if c.truth is not None]
    places = [(c.truth, [(k.start, k.end) for k in p.candidates]) for c, p in known]
    best = sum(bool(listed) and listed[0] == true for true, listed in places)
    shown = sum(true in listed for true, listed in places)
    return f"{edit}: true place best {best}/{len(known)}, listed {shown}/{len(known)}"


def test_bench_anchoring() -> None:
    cases = generate()
    assert len(cases) == N_DOCS * SPANS_PER_DOC
    assert all(c.span.state_in(c.new) is SpanState.STALE for c in cases)

    t0 = time.perf_counter()
    found = [c.new.find(c.span.quote) for c in cases]
    t_find = time.perf_counter() - t0

    t0, c0 = time.perf_counter(), time.process_time()
    proposals = propose_many((c.span, c.old, c.new) for c in cases)
    t_anchor, cpu = time.perf_counter() - t0, time.process_time() - c0

    n = len(cases)
    docs = len({c.span.doc for c in cases})
    print(f"\nre-anchoring: {n} stale spans in {docs} documents")
    print(f"  propose_many: {t_anchor:.2f} s, {n / t_anchor:,.0f} spans/s (target ≤ 10 s)")
    print(f"  of which CPU: {cpu:.2f} s (wall above it means other load on the machine)")
    print(f"  str.find pass: {t_find * 1000:.1f} ms ({sum(f >= 0 for f in found)} quotes found)")
    print(f"  ratio anchoring / find: {t_anchor / t_find:,.0f}×")
    for edit in dict.fromkeys(EDITS):
        print("  " + accuracy(cases, proposals, edit))
    shown = sum(len(p.candidates) for p in proposals)
    print(f"  candidates per span: {shown / n:.2f}")
    assert len(proposals) == n
    assert all(p.span is c.span for c, p in zip(cases, proposals, strict=True))
    moved = [(c, p) for c, p in zip(cases, proposals, strict=True) if c.edit == "shift"]
    assert all(c.truth in [(k.start, k.end) for k in p.candidates] for c, p in moved)
