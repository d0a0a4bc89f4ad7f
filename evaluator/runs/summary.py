"""What `spanlab eval` and `spanlab demo` print on a terminal: a summary that fits 80
columns, the gained and lost queries with their causes, and the gates. The full tables
are in the run folder's report.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from evaluator.metrics.compare import Status
from evaluator.runs.report import skipped_note

if TYPE_CHECKING:
    from evaluator.pipeline.result import RunResult

COLUMNS = (
    ("evidence_recall@k", "recall@k", "{:.3f}"),
    ("hit@k", "hit@k", "{:.3f}"),
    ("oracle_recall", "oracle", "{:.3f}"),
    ("chunk_count", "chunks", "{:.0f}"),
)
"""What fits an 80-column terminal; report.md in the run folder has every metric."""

CAUSES = (
    "cut: no chunk holds the evidence (a boundary split it) · "
    "crowded: it matched, but below rank k · disappeared: no match within depth"
)


def summary_table(result: RunResult) -> Table:
    table = Table(
        title="Candidates against the baseline (*)", title_justify="left",
        box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 0, 0, 1),
    )  # fmt: skip
    table.add_column("candidate", no_wrap=True)
    for _, header, _ in COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    for header in ("+", "−", "Δ recall", "95% CI"):
        table.add_column(header, justify="right", no_wrap=True)
    for name, run in result.runs.items():
        metrics = run.metrics()
        cells = ["–" if metrics.get(k) is None else fmt.format(metrics[k]) for k, _, fmt in COLUMNS]
        comp = result.comparisons.get(name)
        if comp is None:
            table.add_row(f"{escape(name)} *", *cells, "", "", "", "")
            continue
        ci = comp.significance.recall_interval
        delta = comp.overall.deltas.get("evidence_recall@k") or 0.0
        interval = "" if ci is None else f"{ci.low:+.2f}..{ci.high:+.2f}"
        counts = comp.overall.counts
        table.add_row(
            escape(name), *cells, f"[green]{counts.gained}", f"[red]{counts.lost}", f"{delta:+.3f}",
            interval,
        )  # fmt: skip
    return table


def print_changes(result: RunResult, console: Console, *, show_text: bool) -> None:
    """Gained and lost query ids with their causes; query text only when `show_text`."""
    texts = {q.id: escape(q.text) for q in result.queries} if show_text else {}
    for name, comp in result.comparisons.items():
        console.print(f"\n[bold]{escape(name)}[/] against {escape(comp.baseline)}")
        for status, colour in ((Status.LOST, "red"), (Status.GAINED, "green")):
            changes = sorted(comp.with_status(status), key=lambda c: c.query)
            console.print(f"  [{colour}]{status.value} ({len(changes)})[/]")
            for change in changes:
                cause = f" [dim]{change.cause:<11}[/]" if change.cause else ""
                line = f"    {escape(change.query)}{cause}  {texts.get(change.query, '')}"
                console.print(line, no_wrap=True, overflow="ellipsis")


def print_gates(result: RunResult, console: Console) -> None:
    broken = [g for g in result.gates if not g.passed]
    if not result.gates:
        console.print("\ngates  none declared")
        return
    verdict = "[green]PASS[/]" if not broken else f"[red]FAIL[/] ({len(broken)} broken)"
    console.print(f"\ngates  {verdict}")
    for g in broken:
        value = "–" if g.value is None else f"{g.value:g}"
        where = escape(f"{g.candidate}  {g.scope}  {g.gate}")
        console.print(f"  {where} = {value}, limit {g.limit:g}")


def print_run(result: RunResult, folder: Path, console: Console, *, show_text: bool) -> None:
    """The terminal summary of a run; query text only when `show_text` (never in CI)."""
    if note := skipped_note(result):
        console.print(f"[yellow]{note}[/]")
    console.print()
    console.print(summary_table(result))
    print_changes(result, console, show_text=show_text)
    console.print(f"\n[dim]{CAUSES}[/]")
    print_gates(result, console)
    console.print(f"\nrun folder  {folder}  (report.md, run.json, junit.xml, frontier.svg)")
