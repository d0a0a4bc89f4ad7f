"""What `spanlab plan` prints: the candidates' chunks, their ceilings, and the spans they cut;
and the one line per candidate `eval` and `demo` print before any embedding.

Everything printed is read from the `Plan`; names and document text pass the display rule
and are escaped for rich markup.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from evaluator.fold import folded
from evaluator.plan.anchor import anchor_words
from evaluator.plan.model import CandidatePlan, Ceiling, Plan, SpanPlan
from labeler.core import display

SPANS_SHOWN = 40
"""Spans listed on a terminal; `--json` has them all."""


def _outside(text: str) -> str:
    return escape(display.shown(text, lines=False))


def _num(value: float | None, form: str = "{:.0f}") -> str:
    return "–" if value is None else form.format(value)


def header(plan: Plan) -> str:
    """k, budget (and where it came from), rule, threshold and the labels planned on."""
    how = "declared" if plan.budget_declared else "k × the baseline's mean chunk tokens, rounded up"
    n = plan.queries
    labels = "no labels: chunk statistics alone" if n is None else f"{n} answerable queries"
    return (
        f"plan — no embedding, no index · k = {plan.k} · budget {plan.budget:,} tokens ({how})"
        f" · match {plan.match} · threshold {plan.coverage_threshold:g} · {labels}"
    )


def chunks_table(plan: Plan) -> Table:
    """Per candidate: chunks, token lengths, mean tokens sent for a chunk where a context
    unit is sent instead, realized overlap, index and embedding cost."""
    table = Table(title="Chunks (tokens of the settings' tokenizer)", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 0, 0, 1))  # fmt: skip
    table.add_column("candidate", no_wrap=True)
    table.add_column("cut", no_wrap=True)
    for name in ("chunks", "mean", "p50", "p95", "max", "sent", "overlap", "index", "embed"):
        table.add_column(name, justify="right", no_wrap=True)
    for c in plan.candidates:
        f = c.figures
        table.add_row(_name(plan, c), _outside(c.splitter), f"{f.chunk_count:,}",
                      _num(f.tokens_mean, "{:.1f}"), _num(f.tokens_p50), _num(f.tokens_p95),
                      _num(f.tokens_max), _sent(c), _num(f.realized_overlap, "{:.2f}×"), _index(c),
                      _cost(c))  # fmt: skip
    return table


def _sent(c: CandidatePlan) -> str:
    """Mean tokens sent per retrieved chunk, where a context unit (§18) is sent instead."""
    same = c.sent_tokens_mean == c.figures.tokens_mean
    return "" if same else _num(c.sent_tokens_mean, "{:.1f}")


def _name(plan: Plan, c: CandidatePlan) -> str:
    return _outside(c.name) + (" *" if c.name == plan.baseline else "")


def _index(c: CandidatePlan) -> str:
    f = c.figures
    if f.vector_bytes is not None:
        return f"{f.vector_bytes / 1e6:,.2f} MB"
    return f"{f.indexed_chars:,} ch"


def _cost(c: CandidatePlan) -> str:
    """`412 new / 96 cached, ~21 s` (time at the throughput the cache last measured)."""
    cost = c.cost
    if cost is None:
        return "nothing"
    if cost.cached is None:
        return f"{cost.texts:,} texts"
    time = "" if cost.seconds is None else f", ~{cost.seconds:,.0f} s"
    return f"{cost.new:,} new / {cost.cached:,} cached{time}"


def ceiling_table(plan: Plan) -> Table:
    """Recall and hit a perfect ranking reaches: at k, at the budget (the verdict's fill
    rule: the best units that fit, the crossing one left out), over the whole index."""
    table = Table(title="Ceiling — a perfect ranking (recall / hit)", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 0, 0, 1))  # fmt: skip
    for name in ("candidate", "rule"):
        table.add_column(name, no_wrap=True)
    for name in (f"at k = {plan.k}", f"at budget {plan.budget:,}", "oracle", "cut spans"):
        table.add_column(name, justify="right", no_wrap=True)
    for c in plan.candidates:
        for rule in (plan.match, "union" if plan.match == "chunk" else "chunk"):
            table.add_row(
                _name(plan, c) if rule == plan.match else "", rule + ("" if rule != plan.match
                else " (declared)"), _pair(c.ceiling(rule, plan.k)),
                _pair(c.at_budget(rule)), _pair(c.ceiling(rule, None)),
                str(c.cut_spans) if rule == plan.match else "",
            )  # fmt: skip
    return table


def _pair(found: Ceiling | None) -> str:
    if found is None:
        return "–"
    approx = "≥" if found.greedy else ""
    return f"{approx}{_num(found.recall, '{:.3f}')} / {_num(found.hit, '{:.3f}')}"


def span_lines(plan: Plan, limit: int | None = SPANS_SHOWN) -> Iterator[str]:
    """Each span a candidate cuts or parts from its question's words: where, and what
    would hold it. Lines are rich markup, outside text escaped."""
    shown = plan.spans if limit is None else plan.spans[:limit]
    yield f"Spans a candidate cuts, or parts from the question's words ({len(plan.spans)})"
    for s in shown:
        yield from _span(s)
    if len(shown) < len(plan.spans):
        yield f"… {len(plan.spans) - len(shown)} more: spanlab plan --json lists every one"


def _span(s: SpanPlan) -> Iterator[str]:
    yield f"  {_outside(s.query)} e{s.span}  {_outside(s.doc)} {s.start}..{s.end}"
    for cut in s.cuts:
        at = ", ".join(b.said for b in cut.boundaries) or "no boundary inside: too few covered"
        yield f"    {_outside(cut.candidate)}: cut at {escape(at)}; {escape(cut.hold.words)}"
    if s.anchor is not None:
        yield from (f"    {escape(line)}" for line in anchor_words(s.anchor))


def ceiling_line(plan: Plan, c: CandidatePlan) -> str:
    """One line for `eval`'s start: chunks and the ceiling under the declared rule."""
    f, rule = c.figures, plan.match
    at_k, at_budget = c.ceiling(rule, plan.k), c.at_budget(rule)
    oracle = c.ceiling(rule, None)
    if oracle is None:
        return f"plan {c.name}: {f.chunk_count:,} chunks, mean {_num(f.tokens_mean)} tokens"
    return (
        f"plan {c.name}: {f.chunk_count:,} chunks, mean {_num(f.tokens_mean)} tokens · "
        f"ceiling ({rule}) recall/hit at k={plan.k} {_pair(at_k)}, at budget "
        f"{plan.budget:,} {_pair(at_budget)}, oracle {_pair(oracle)}"
    )


def ceiling_lines(plan: Plan) -> list[str]:
    """`ceiling_line` for every candidate, in file order (plain text, not markup)."""
    return [ceiling_line(plan, c) for c in plan.candidates]


def print_plan(plan: Plan, console: Console) -> None:
    """The whole plan on a terminal."""
    console.print(escape(header(plan)))
    console.print(*folded(chunks_table(plan), console))
    if plan.queries is None:
        console.print("no labels: chunk statistics alone (pass --labels FILE, or label queries)")
        return
    console.print(*folded(ceiling_table(plan), console, keep=2))
    console.print("\n".join(span_lines(plan)), highlight=False)  # one render, not one a line
