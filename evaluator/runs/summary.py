"""What `spanlab eval` and `spanlab demo` print on a terminal: a summary folded to the
terminal's width (80 columns too), the gained and lost queries with their causes, and the
gates — from the RunFile. Query text comes from the caller (the run folder holds none by
default); report.md has the full tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from evaluator.fold import folded
from evaluator.metrics.causes import legend
from evaluator.metrics.compare import Status
from evaluator.metrics.registry import CHUNK_COUNT, HIT, ORACLE, RECALL, shown
from evaluator.runs import extraction_text
from evaluator.runs.budget_text import basis_name, budget_table, flags
from evaluator.runs.extraction_record import ExtractionRecord
from evaluator.runs.gate_text import gate_basis, gate_line
from evaluator.runs.generation_text import answer_flags, print_answers
from evaluator.runs.model import RunFile
from evaluator.runs.report import ranked_skips, skipped_note
from evaluator.runs.review_view import BREAKDOWNS, breakdown_rows, measured, review_rows
from evaluator.runs.review_view import COLUMNS as REVIEW_COLUMNS
from evaluator.runs.review_view import LEGEND as REVIEW_LEGEND
from evaluator.runs.verdict_words import loss_scope, rule_note, settings_line
from labeler.core import display

COLUMNS = (RECALL, HIT, ORACLE, CHUNK_COUNT)
"""What fits an 80-column terminal, by registry name; report.md has every metric."""


def _outside(text: str) -> str:
    """A name or a question from a run or a store, safe for the terminal and for markup."""
    return escape(display.shown(text, lines=False))


def causes_legend(match: str = "chunk") -> str:
    """Every cause under the run's rule, in its own words, on one line."""
    return f"causes under {match}: {legend(match)}"


def summary_table(run: RunFile, *, declared: bool = True) -> Table:
    """The candidates under the declared rule (which gates), or under the other one."""
    at_k = f"at k = {run.manifest.settings.k}"  # every figure here is at k (§17)
    gating = "gating" if run.decide == "k" else f"gating at {basis_name(run, 'budget')} (below)"
    title = (
        f"Candidates against the baseline (*) at k — match {run.match}, {gating}"
        if declared else f"Under match {run.other_match} ({rule_note(run)}), {at_k}, not gating"
    )  # fmt: skip
    table = Table(
        title=title, title_justify="left",
        box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 0, 0, 1),
    )  # fmt: skip
    table.add_column("candidate", no_wrap=True)
    for name in COLUMNS:
        table.add_column(shown(name).short, justify="right", no_wrap=True)
    for header in ("+", "−", "Δ recall", "95% CI"):
        table.add_column(header, justify="right", no_wrap=True)
    comparisons = run.comparisons if declared else run.other_comparisons
    for cand in run.candidates:
        cells = [shown(name).text(cand.metric_under(name, declared)) for name in COLUMNS]
        comp = comparisons.get(cand.name)
        if comp is None:
            table.add_row(f"{_outside(cand.name)} *", *cells, "", "", "", "")
            continue
        ci = comp.significance.recall_interval
        delta = shown(RECALL).delta_text(comp.overall.deltas.get(RECALL) or 0.0)
        interval = "" if ci is None else f"{ci.low:+.2f}..{ci.high:+.2f}"
        counts = comp.overall.counts
        table.add_row(
            _outside(cand.name), *cells, f"[green]{counts.gained}", f"[red]{counts.lost}", delta,
            interval,
        )  # fmt: skip
    return table


def _table(title: str) -> Table:
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                 padding=(0, 0, 0, 1))  # fmt: skip


def review_summary(run: RunFile) -> Table:
    """Evidence relevance beside context completeness, and the costs, per candidate."""
    table = _table("Evidence and cost")
    table.caption, table.caption_justify = REVIEW_LEGEND, "left"
    table.add_column("candidate", no_wrap=True)
    shown_cols = measured(run)
    for i in shown_cols:
        table.add_column(REVIEW_COLUMNS[i].short, justify="right", no_wrap=True)
    for name, cells in review_rows(run):
        table.add_row(_outside(name), *(cells[i] for i in shown_cols))
    return table


TERMINAL_BREAKDOWNS = ("format", "length", "boundary", "slice")
"""The breakdowns the terminal shows (by document: report.md, it is long)."""


def breakdown_summaries(run: RunFile) -> list[Table]:
    """Recall@k per group of each terminal breakdown, every candidate side by side."""
    tables = []
    for dim, title in ((d, t) for d, t in BREAKDOWNS if d in TERMINAL_BREAKDOWNS):
        rows = breakdown_rows(run, dim)
        if not rows:
            continue
        table = _table(f"Recall@k by {title}")
        table.add_column(title, no_wrap=True)
        table.add_column("answerable", justify="right")
        for cand in run.candidates:
            table.add_column(_outside(cand.name), justify="right", no_wrap=True)
        for key, count, cells in rows:
            table.add_row(_outside(key), str(count), *cells)
        tables.append(table)
    return tables


def print_changes(run: RunFile, console: Console, texts: Mapping[str, str]) -> None:
    """Gained and lost query ids with their causes, and the text of those in `texts`."""
    for name, comp in run.comparisons.items():
        console.print(f"\n[bold]{_outside(name)}[/] against {_outside(comp.baseline)}")
        for status, colour in ((Status.LOST, "red"), (Status.GAINED, "green")):
            changes = sorted(comp.with_status(status), key=lambda c: c.query)
            console.print(
                f"  [{colour}]{status.value} at {basis_name(run, 'k')} ({len(changes)})[/]"
            )
            for change in changes:
                cause = f" [dim]{change.cause:<11}[/]" if change.cause else ""
                if status == Status.LOST:
                    scope = loss_scope(run, name, change.query).replace("lost under ", "")
                    cause += f" [dim]{_outside(scope):<12}[/]" if scope else ""
                text = _outside(texts.get(change.query, ""))
                line = f"    {_outside(change.query)}{cause}  {text}"
                console.print(line, no_wrap=True, overflow="ellipsis")


def print_gates(run: RunFile, console: Console) -> None:
    """Each candidate's verdict on its own gates, then every broken gate in words."""
    broken = [g for g in run.gates if not g.passed]
    if not run.gates:
        console.print("\ngates  none declared")
        return
    verdict = "[green]PASS[/]" if not broken else f"[red]FAIL[/] ({len(broken)} broken)"
    basis = f"  at {basis_name(run, run.decide)}" if run.budget is not None else ""
    console.print(f"\ngates  {verdict}{basis}")
    for name in run.gated:
        mark = "[green]PASS[/]" if run.passed_for(name) else "[red]FAIL[/]"
        base = " (baseline)" if name == run.baseline.name else ""
        console.print(f"  {mark}  {_outside(name)}{base}")
    for line in [*flags(run), *answer_flags(run)]:
        console.print(f"  [yellow]flag[/]  {_outside(line)}")
    for g in broken:
        console.print(f"    {_outside(g.candidate)}  {_outside(gate_line(g, gate_basis(run)))}")


def print_extraction(found: ExtractionRecord, console: Console) -> None:
    """The extractor comparison (§22): its table, then what each alternative broke."""
    grid = _table("Extractors compared (spans by fate; queries through "
                  f"{_outside(found.chunked_by)})")  # fmt: skip
    for col in extraction_text.COLUMNS:
        grid.add_column(col, justify="left" if col in ("alternative", "extractor") else "right")
    for row in extraction_text.rows(found):
        grid.add_row(*map(escape, row))
    console.print()
    console.print(*folded(grid, console, keep=1))
    for alt in found.alternatives:
        console.print(f"{_outside(alt.name)}: {escape(extraction_text.describe(alt))}")
        for line in extraction_text.details(alt):
            console.print(f"  {escape(line)}")
    console.print(f"[dim]{escape(extraction_text.legend())}[/]")


def print_run(
    run: RunFile, folder: Path, console: Console, *, texts: Mapping[str, str] | None = None
) -> None:
    """The terminal summary of a run; query text only for the queries in `texts`."""
    if note := skipped_note(run):
        console.print(f"[yellow]{note}[/]")
    for line in ranked_skips(run):
        console.print(f"[yellow]{_outside(line)}[/]")
    console.print()
    console.print(_outside(settings_line(run)))
    console.print()
    tables = [summary_table(run)]
    if run.both_rules:
        tables.append(summary_table(run, declared=False))
    if run.budget is not None:
        tables.append(budget_table(run))
    tables.append(review_summary(run))
    for table in tables:  # folded by columns where the terminal is narrower: no cell cut
        console.print(*folded(table, console))
    for table in breakdown_summaries(run):  # each part with the group and its count
        console.print(*folded(table, console, keep=2))
    print_changes(run, console, texts or {})
    console.print(f"\n[dim]{escape(causes_legend(run.match))}[/]")
    print_answers(run, console)
    print_gates(run, console)
    if run.extraction is not None:
        print_extraction(run.extraction, console)
    files = "report.md, run.json, junit.xml, frontier.svg, chunks.tsv"
    files += ", generation.jsonl" if run.generation is not None else ""
    console.print(f"\nrun folder  {_outside(str(folder))}  ({files})")
