"""A run-against-run comparison in words (§16): the terminal's lines and the markdown
report, from one `RunDiff`, so the two say the same thing.

It reads as a reviewer's answer: what was compared and on how many queries, what differs
in settings and manifests, the measures side by side with their deltas and the paired
statistics, then each gained and lost query with its cause under each run.
"""

from __future__ import annotations

from evaluator.metrics import CandidateResult
from evaluator.metrics.causes import query_cause
from evaluator.metrics.compare import Comparison, QueryChange, Status
from evaluator.metrics.registry import (
    ABSTENTION_TOP1,
    CHROMA_PRECISION_OMEGA,
    CHUNK_COUNT,
    DOCUMENT_HIT,
    DUPLICATES,
    HIT,
    ORACLE,
    PROMPT_TOKENS,
    RECALL,
    RULED,
    UNIQUE_EVIDENCE,
    shown,
)
from evaluator.runs.diff import RunDiff
from evaluator.runs.diff_budget import AT_BUDGET
from evaluator.runs.diff_generation import answer_lines, answer_markdown
from evaluator.runs.review_view import answerable, unique_count
from evaluator.runs.verdict_words import settings_line
from labeler.core.corpus.walk import shown as plain
from labeler.core.display import markdown_code, markdown_text

MEASURES = (RECALL, HIT, DOCUMENT_HIT, ORACLE, UNIQUE_EVIDENCE, ABSTENTION_TOP1,
            CHROMA_PRECISION_OMEGA, PROMPT_TOKENS, DUPLICATES, CHUNK_COUNT)  # fmt: skip
"""The figures compared side by side: evidence, then cost (§17). Under the other rule only
the rule-dependent ones; chunks is the candidate's, the rest means over shared queries."""

_RULED = {m.name for m in RULED}


def _title(d: RunDiff) -> str:
    a, b = d.a, d.b
    return (f"{plain(d.candidate_a)} ({a.id}, match {a.match}) → "
            f"{plain(d.candidate_b)} ({b.id}, match {b.match})")  # fmt: skip


def _scope(d: RunDiff) -> str:
    answerable = d.comparison.significance.answerable
    text = f"on {len(d.shared)} shared queries ({answerable} answerable)"
    if d.left_out:
        listed = ", ".join(d.left_out[:8]) + (" …" if len(d.left_out) > 8 else "")
        text += f"; {len(d.left_out)} left out (in one run only, or other evidence): {listed}"
    if d.partial:
        text += " — corpora or label sets differ: only the shared part is compared"
    return text


def _measure_rows(d: RunDiff) -> list[tuple[str, str, str, str]]:
    """(label, A, B, Δ) per measure; the other rule's in a second block when present."""
    rows = []
    blocks = [(d.comparison, d.sides, "")]
    if d.other is not None and d.other_sides is not None:
        oa, ob = d.a.other_match, d.b.other_match
        rule = f" under {oa}" if oa == ob else f" under {oa} · {ob}"
        blocks.append((d.other, d.other_sides, rule))
    for comp, (ra, rb), rule in blocks:
        for name in MEASURES if not rule else [m for m in MEASURES if m in _RULED]:
            fmt = shown(name)
            a, b = _figure(d, ra, name, True), _figure(d, rb, name, False)
            delta = comp.overall.deltas.get(name)
            if delta is None and a is not None and b is not None:
                delta = b - a
            if name == UNIQUE_EVIDENCE:  # a count, shown as one (§18: groups)
                rows.append(_unique_row(d, rule, a, b))
                continue
            rows.append((f"{fmt.short}{rule}", fmt.text(a), fmt.text(b), fmt.delta_text(delta)))
    if d.budget is not None and d.budget_sides is not None:
        for name in AT_BUDGET:  # the same figures at each run's budget (§17)
            fmt = shown(name)
            a, b = (_figure(d, side, name, n == 0) for n, side in enumerate(d.budget_sides))
            rows.append((f"{fmt.short.replace('@k', '')} at budget", fmt.text(a), fmt.text(b),
                         fmt.delta_text(d.budget.overall.deltas.get(name))))  # fmt: skip
    return rows


def _unique_row(
    d: RunDiff, rule: str, a: float | None, b: float | None
) -> tuple[str, str, str, str]:
    """unique evidence as groups found of those labelled on the shared queries."""
    n = answerable(d.a, d.shared)
    delta = "–" if a is None or b is None else f"{round((b - a) * n):+d}"
    return (f"unique groups{rule}", unique_count(d.a, a, d.shared).removesuffix(" groups"),
            unique_count(d.b, b, d.shared).removesuffix(" groups"), delta)  # fmt: skip


def _bases(d: RunDiff) -> str:
    """Which basis each figure is at: `@k` at k = 5; `at budget` at A's 608 and B's 608."""
    k = f"k = {d.a.manifest.settings.k}"
    if d.a.manifest.settings.k != d.b.manifest.settings.k:
        k = f"k = {d.a.manifest.settings.k} (A) · {d.b.manifest.settings.k} (B)"
    said = f"bases: @k at {k}"
    if d.budget is not None:
        return (said + f"; at budget at A's {d.a.budget or 0:,} and B's {d.b.budget or 0:,} "
                f"tokens (A decides at {d.a.decide}, B at {d.b.decide})")  # fmt: skip
    return said + (f"; no figures at budget: {d.no_budget}" if d.no_budget else "")


def _lists(d: RunDiff) -> list[tuple[str, Comparison, bool]]:
    """(heading basis, comparison, with causes) for the gained and lost lists: at k, and at
    budget when there is one (causes are kept at k only)."""
    if d.budget is None:
        return [("", d.comparison, True)]
    return [(f" at k = {d.a.manifest.settings.k}", d.comparison, True),
            (" at budget", d.budget, False)]  # fmt: skip


def _figure(d: RunDiff, side: CandidateResult, name: str, is_a: bool) -> float | None:
    """A measure's aggregate on the shared queries; chunks from the candidate's record."""
    if name == CHUNK_COUNT:
        run, cand = (d.a, d.candidate_a) if is_a else (d.b, d.candidate_b)
        return run.candidate(cand).metric(CHUNK_COUNT)
    value = side.aggregates.get(name)
    return None if value is None else float(value)


def _statistics(comp: Comparison, at_budget: bool = False) -> str:
    sig = comp.significance
    ci = sig.recall_interval
    recall = shown(RECALL)
    label = "recall at budget" if at_budget else recall.short
    parts = [f"Δ {label} {recall.delta_text(comp.overall.deltas.get(RECALL))}"]
    if ci is not None:
        parts.append(f"95% CI [{ci.low:+.3f}, {ci.high:+.3f}] (paired bootstrap, seed {ci.seed})")
    if sig.decisive and sig.mcnemar_p is not None:
        parts.append(f"McNemar exact p = {sig.mcnemar_p:.3g}")
    else:
        parts.append(sig.reason or "")
    counts = comp.overall.counts
    parts.append(f"{counts.gained} gained, {counts.lost} lost")
    return " · ".join(p for p in parts if p)


def _cause(d: RunDiff, qid: str, side_a: bool) -> str:
    run, name = (d.a, d.candidate_a) if side_a else (d.b, d.candidate_b)
    cause = query_cause(run.queries[qid].candidates[name].span_causes)
    return "hit" if cause is None else str(cause)


def _change_line(d: RunDiff, change: QueryChange, causes: bool = True) -> str:
    entry = d.a.queries[change.query]
    tags = ", ".join([entry.boundary, *entry.slices])
    if not causes:
        a, b = ("hit", "miss") if change.status == Status.LOST else ("miss", "hit")
        return f"{change.query} ({plain(tags)}): {a} in A → {b} in B"
    a, b = _cause(d, change.query, True), _cause(d, change.query, False)
    return f"{change.query} ({plain(tags)}): {a} in A → {b} in B"


def diff_lines(d: RunDiff) -> list[str]:
    """The comparison as terminal lines (plain text; no query or document text)."""
    lines = [f"diff {_title(d)}", _scope(d), ""]
    lines += [f"A  {plain(settings_line(d.a))}", f"B  {plain(settings_line(d.b))}", ""]
    lines += _differences(d, "  ")
    rows = _measure_rows(d)
    width = max(len(r[0]) for r in rows)
    lines += ["", _bases(d), f"{'measure':<{width}} {'A':>8} {'B':>8} {'Δ':>8}"]
    lines += [f"{label:<{width}} {a:>8} {b:>8} {delta:>8}" for label, a, b, delta in rows]
    lines += ["", _statistics(d.comparison)]
    if d.budget is not None:
        lines.append(_statistics(d.budget, at_budget=True))
    for basis, comp, causes in _lists(d):
        for status in (Status.LOST, Status.GAINED):
            changes = sorted(comp.with_status(status), key=lambda c: c.query)
            lines += ["", f"{status.value}{basis} ({len(changes)})"]
            lines += [f"  {_change_line(d, c, causes)}" for c in changes]
    return lines + answer_lines(d.a, d.b, d.answers, d.no_answers)


def _differences(d: RunDiff, indent: str) -> list[str]:
    if not d.settings and not d.manifest:
        return ["settings and manifests: the same"]
    lines = ["what differs (A → B):"]
    lines += [f"{indent}setting {n}: {plain(a)} → {plain(b)}" for n, a, b in d.settings]
    lines += [f"{indent}{n}: {plain(a)} → {plain(b)}" for n, a, b in d.manifest]
    return lines


def diff_markdown(d: RunDiff) -> str:
    """The comparison as a markdown report (fits a CI job summary). Every string from the
    runs is markdown-escaped: run.json may be an artifact from elsewhere (§20)."""
    text, code = markdown_text, markdown_code
    lines = [f"# spanlab diff: {text(_title(d))}", "", text(_scope(d)), ""]
    lines += [f"- A: {text(settings_line(d.a))}", f"- B: {text(settings_line(d.b))}", ""]
    if d.settings or d.manifest:
        lines += ["| what differs | A | B |", "|---|---|---|"]
        lines += [f"| setting {code(n)} | {code(a)} | {code(b)} |" for n, a, b in d.settings]
        lines += [f"| {text(n)} | {code(a)} | {code(b)} |" for n, a, b in d.manifest]
    else:
        lines.append("Settings and manifests are the same.")
    lines += ["", text(_bases(d)), "", "| measure | A | B | Δ |", "|---|---|---|---|"]
    lines += [f"| {text(label)} | {a} | {b} | {delta} |"
              for label, a, b, delta in _measure_rows(d)]  # fmt: skip
    lines += ["", text(_statistics(d.comparison))]
    if d.budget is not None:
        lines += ["", text(_statistics(d.budget, at_budget=True))]
    for basis, comp, causes in _lists(d):
        for status, title in ((Status.LOST, "Lost"), (Status.GAINED, "Gained")):
            changes = sorted(comp.with_status(status), key=lambda c: c.query)
            lines += ["", f"**{title}{basis} ({len(changes)})**", ""]
            lines += [f"- {code(_change_line(d, c, causes))}" for c in changes] or ["- none"]
    lines += answer_markdown(d.a, d.b, d.answers, d.no_answers)
    return "\n".join(lines) + "\n"
