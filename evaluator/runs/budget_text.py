"""The context budget in words and tables (§17): the budget and the deciding basis for
every header, each candidate's verdict at k beside its verdict at budget (flagged where they
differ), every measure at both, and the recall–budget curve with a chart GitHub renders.

report.md, the terminal summary and the frontier image call these, so the budget is named
the same way everywhere.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from evaluator.metrics.registry import (
    HIT,
    PROMPT_TOKENS,
    RECALL,
    RULED,
    SUMMARY,
    UNIQUE_EVIDENCE,
    shown,
)
from evaluator.runs.model import RunFile
from evaluator.runs.review_view import unique_count
from labeler.core import display

CROSSING = "the chunk that would cross it is left out, and the context ends there"
"""The one rule for the chunk that crosses the budget, as every header states it."""


def budget_items(run: RunFile) -> list[tuple[str, str]]:
    """(`budget`, `608 tokens (default)`) and (`decides`, `budget (sizes differ 93%)`) for
    the settings line; none for a run written before budgets were kept."""
    if run.budget is None:
        return []
    note = run.manifest.context_budget
    spread = note.get("size_spread")
    why = "settings" if note.get("decide_from") == "settings" or spread is None else (
        f"sizes differ {float(spread):.0%}")  # fmt: skip
    return [
        ("budget", f"{run.budget:,} tokens ({note.get('budget_from', 'settings')})"),
        ("decides", f"{run.decide} ({why})"),
    ]


def budget_rule(run: RunFile) -> str:
    """How the budget and the deciding basis were chosen, in one sentence for report.md."""
    note = run.manifest.context_budget
    parts = []
    if note.get("budget_from") == "default" and note.get("budget_rule"):
        parts.append(f"budget by default: {note['budget_rule']}")
    if note.get("decide_from") == "default" and note.get("decide_rule"):
        parts.append(f"decides by default: {note['decide_rule']} "
                     f"(they differ by {float(note.get('size_spread') or 0):.0%})")  # fmt: skip
    return "; ".join(parts) + "." if parts else "Budget and basis declared in the settings."


def basis_name(run: RunFile, basis: str) -> str:
    """`k = 5` or `budget 608`."""
    return f"k = {run.manifest.settings.k}" if basis == "k" else f"budget {run.budget:,}"


def context_ratio(run: RunFile, name: str) -> float | None:
    """The candidate's prompt tokens at k over the baseline's."""
    mine, base = run.candidate(name).metric(PROMPT_TOKENS), run.baseline.metric(PROMPT_TOKENS)
    return None if mine is None or not base else mine / base


def verdict_pair(run: RunFile, name: str) -> str:
    """`PASS at k = 5 · FAIL at budget 608 (decides)`: k first, as every pair of cells."""
    return " · ".join(
        f"{'PASS' if run.passed_on(name, b) else 'FAIL'} at {basis_name(run, b)}"
        + (" (decides)" if b == run.decide else "")
        for b in ("k", "budget")
    )


def recall_deltas(run: RunFile, name: str) -> tuple[float | None, float | None]:
    """Δ evidence recall against the baseline at k and at budget (None where not kept)."""
    at_k, at_b = run.comparisons.get(name), run.budget_comparisons.get(name)
    return (None if at_k is None else at_k.overall.deltas.get(RECALL),
            None if at_b is None else at_b.overall.deltas.get(RECALL))  # fmt: skip


def flag(run: RunFile, name: str) -> str | None:
    """For a candidate whose verdict differs between k and budget: `wins at k = 5 by
    sending 1.9× the context`, or `wins only at budget 608 (1.2× the context at k)`; for one
    whose Δ recall changes sign between them, gates or not: `Δ recall +0.031 at k = 5,
    −0.044 at budget 608: ahead at k = 5 by sending 1.9× the context`."""
    if run.budget is None:
        return None
    ratio = context_ratio(run, name)
    times = "" if ratio is None else f"{ratio:.1f}×"
    if run.passed_on(name, "k") != run.passed_on(name, "budget"):
        if run.passed_on(name, "k"):
            return f"wins at {basis_name(run, 'k')} by sending {times} the context"
        return f"wins only at {basis_name(run, 'budget')} ({times} the baseline's context at k)"
    at_k, at_b = recall_deltas(run, name)
    if at_k is None or at_b is None or at_k * at_b >= 0:
        return None
    said = (f"Δ recall {shown(RECALL).delta_text(at_k)} at {basis_name(run, 'k')}, "
            f"{shown(RECALL).delta_text(at_b)} at {basis_name(run, 'budget')}: ")  # fmt: skip
    if at_k > 0:
        return said + f"ahead at {basis_name(run, 'k')} by sending {times} the context"
    return said + f"ahead only at {basis_name(run, 'budget')} ({times} the baseline's context at k)"


def flags(run: RunFile) -> list[str]:
    """`tok256-ov64: PASS at k = 5 · FAIL at budget 608 (decides) — wins at k = 5 by …`."""
    return [
        f"{name}: {verdict_pair(run, name)} — {said}"
        for name in run.others
        if (said := flag(run, name)) is not None
    ]


def budget_md(run: RunFile) -> list[str]:
    """report.md's budget section: the header line, verdicts, every measure, the curve."""
    if run.budget is None:
        return ["_This run was written before context budgets were kept: only k is recorded._"]
    lines = [f"## At k and at budget — {run.decide} decides", "",
             f"Budget {run.budget:,} tokens of the settings' tokenizer (prefixes count); "
             f"{CROSSING}. {budget_rule(run).capitalize()} Cells: at {basis_name(run, 'k')} · "
             f"at {basis_name(run, 'budget')}.",
             "", *_verdicts_md(run), "", *measures_md(run), "", *costs_md(run), "",
             *curve_md(run)]  # fmt: skip
    return lines


def _verdicts_md(run: RunFile) -> list[str]:
    lines = ["| candidate | verdict | Δ recall | lost | context at k | |", "|---" * 6 + "|"]
    recall = shown(RECALL)
    for name in run.others:
        at_k, at_b = run.comparisons[name], run.budget_comparisons.get(name)
        delta = recall.delta_text(at_k.overall.deltas.get(RECALL))
        lost = str(at_k.overall.counts.lost)
        if at_b is not None:
            delta += " · " + recall.delta_text(at_b.overall.deltas.get(RECALL))
            lost += f" · {at_b.overall.counts.lost}"
        ratio = context_ratio(run, name)
        said = flag(run, name)
        lines.append(f"| `{name}` | {verdict_pair(run, name)} | {delta} | {lost} | "
                     f"{'–' if ratio is None else f'{ratio:.2f}×'} | "
                     f"{f'**flag**: {said}' if said else ''} |")  # fmt: skip
    return lines


def measures_md(run: RunFile) -> list[str]:
    """Every measure at k · at budget, per candidate, under the declared rule; then the
    rule-dependent ones under the other rule."""
    lines: list[str] = []
    ruled = {m.name for m in RULED}
    for declared in (True, False) if run.both_rules else (True,):
        rule = run.match if declared else run.other_match
        names = [n for n in SUMMARY if declared or n in ruled]
        lines += [f"Under match `{rule}`{' (gates)' if declared else ''}:", "",
                  "| measure | " + " | ".join(f"`{c.name}`" for c in run.candidates) + " |",
                  "|---" * (1 + len(run.candidates)) + "|"]  # fmt: skip
        for name in names:
            fmt = shown(name)
            cells = [" · ".join(_cell(run, name, c.metric_at(name, budget=b, declared=declared))
                                for b in (False, True))
                     for c in run.candidates]  # fmt: skip
            lines += [f"| {fmt.unbased()} | " + " | ".join(cells) + " |"]
        lines.append("")
    return lines[:-1]


def _cell(run: RunFile, name: str, value: float | None) -> str:
    """One figure as its column shows it; unique evidence as the count of groups it is."""
    return unique_count(run, value) if name == UNIQUE_EVIDENCE else shown(name).text(value)


def _ms(value: Any) -> str:
    return "–" if not isinstance(value, int | float) else f"{value:.1f}"


def costs_md(run: RunFile) -> list[str]:
    """What each candidate costs (§17): vector bytes, embedding requests, and query latency —
    the first pass after indexing (cold) and the warm passes' medians with the p95 spread."""
    lines = ["| candidate | vector bytes | embedding requests | first pass p50 / p95 ms (cold) "
             "| warm p50 / p95 ms | warm p95 spread | passes |", "|---" * 7 + "|"]  # fmt: skip
    for c in run.candidates:
        t = c.timings
        spread = t.get("query_p95_spread_ms")
        spread_text = (f"{_ms(spread[0])}–{_ms(spread[1])}"
                       if isinstance(spread, list) and len(spread) == 2 else "–")  # fmt: skip
        lines.append(
            f"| `{c.name}` | {shown('vector_bytes').text(c.metric('vector_bytes'))} | "
            f"{shown('embedding_requests').text(c.metric('embedding_requests'))} | "
            f"{_ms(t.get('query_first_pass_p50_ms'))} / {_ms(t.get('query_first_pass_p95_ms'))} | "
            f"{_ms(t.get('query_p50_ms'))} / {_ms(t.get('query_p95_ms'))} | {spread_text} | "
            f"{t.get('query_passes', '–')} |"
        )
    return lines + latency_note(run)


def latency_note(run: RunFile) -> list[str]:
    """Why the warm columns are empty, for a run that timed no warm pass (§17: asked only)."""
    plan = run.manifest.context_budget.get("latency")
    if not isinstance(plan, dict) or plan.get("measured") is not False:
        return []
    return ["", "Warm latency was not measured: no `max_latency_p95_ratio` gate and no "
                "`--latency` asked for it."]  # fmt: skip


def curve_md(run: RunFile) -> list[str]:
    """The recall–budget curve: a table (recall · hit per budget, and the areas) and a
    mermaid chart, one line per candidate in run order."""
    curves = [(c.name, c.curve) for c in run.candidates if c.curve.get("budgets")]
    if not curves:
        return []
    budgets = list(curves[0][1]["budgets"])
    recall, hit = shown(RECALL), shown(HIT)
    lines = ["### Recall–budget curve", "", "Recall · hit when the context holds at most "
             "that many tokens; area: mean over the ladder on a log₂ scale.", "",
             "| candidate | " + " | ".join(f"{b:,}" for b in budgets) + " | area |",
             "|---" * (2 + len(budgets)) + "|"]  # fmt: skip
    for name, curve in curves:
        cells = [f"{recall.text(r)} · {hit.text(h)}"
                 for r, h in zip(curve["recall"], curve["hit"], strict=True)]  # fmt: skip
        area = f"{recall.text(curve.get('recall_area'))} · {hit.text(curve.get('hit_area'))}"
        lines.append(f"| `{name}` | " + " | ".join(cells) + f" | {area} |")
    order = ", ".join(f"{n + 1}. `{name}`" for n, (name, _) in enumerate(curves))
    lines += ["", f"Lines in order: {order}.", "", "```mermaid", "xychart-beta",
              '    title "evidence recall at budget (tokens)"',
              f"    x-axis [{', '.join(str(b) for b in budgets)}]",
              '    y-axis "recall" 0 --> 1']  # fmt: skip
    for _, curve in curves:
        lines.append(f"    line [{', '.join(f'{r or 0.0:.3f}' for r in curve['recall'])}]")
    return [*lines, "```"]


BASES = ("k", "budget")
"""The two bases, in the order every pair of cells shows them."""
TERMINAL = (RECALL, HIT, PROMPT_TOKENS)
"""The figures the terminal shows at k · at budget."""


def budget_table(run: RunFile) -> Table:
    """The terminal's table: each candidate at k · at budget, its Δ recall and verdicts."""
    table = Table(
        title=f"At {basis_name(run, 'k')} · at {basis_name(run, 'budget')} — {run.decide} "
        f"decides; {CROSSING}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
        padding=(0, 0, 0, 1),
    )  # fmt: skip
    table.add_column("candidate", no_wrap=True)
    for name in TERMINAL:
        table.add_column(shown(name).unbased(short=True), justify="right", no_wrap=True)
    table.add_column("Δ recall", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    for cand in run.candidates:
        cells = [f"{shown(n).text(cand.metric_at(n, budget=False))} · "
                 f"{shown(n).text(cand.metric_at(n, budget=True))}" for n in TERMINAL]  # fmt: skip
        at_k, at_b = run.comparisons.get(cand.name), run.budget_comparisons.get(cand.name)
        deltas = " · ".join(shown(RECALL).delta_text(c.overall.deltas.get(RECALL))
                            for c in (at_k, at_b) if c is not None)  # fmt: skip
        verdict = "baseline" if cand.baseline else _verdict_marks(run, cand.name)
        name = escape(display.shown(cand.name, lines=False))
        table.add_row(name + (" *" if cand.baseline else ""), *cells, deltas, verdict)
    return table


def _verdict_marks(run: RunFile, name: str) -> str:
    marks = ["[green]PASS[/]" if run.passed_on(name, b) else "[red]FAIL[/]" for b in BASES]
    return " · ".join(marks) + (" [yellow]flag[/]" if flag(run, name) else "")
