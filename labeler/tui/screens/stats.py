"""The stats screen: how many queries per status, pattern, slice and annotator.

The distribution a team watches so one kind of question does not dominate. Counts come
from `label_stats` in core; this screen only lays them out as bar tables, and reloads
when another annotator changes the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from labeler.core.display import shown
from labeler.core.labels.stats import LabelStats, label_stats
from labeler.core.store import Store
from labeler.tui.messages import LabelsChanged

BAR = 12
"""Cells of the longest bar."""


def bar_table(title: str, counts: Mapping[str, int], total: int) -> Table:
    """One count per row with its share and a bar scaled to the largest count."""
    table = Table(title=title, title_justify="left", box=None, expand=True, pad_edge=False)
    table.add_column(title.split()[-1], ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column("n", justify="right")
    table.add_column("%", justify="right")
    table.add_column("", width=BAR, no_wrap=True)
    top = max(counts.values(), default=0)
    for name, n in counts.items():
        share = f"{100 * n / total:.0f}" if total else "-"
        table.add_row(
            Text(shown(name, lines=False)),
            str(n),
            share,
            "█" * max(1, round(BAR * n / top)) if n else "",
        )
    if not counts:
        table.add_row("(none)", "0", "-", "")
    return table


WORK = {"queries": "made", "spans": "spans", "reviewed": "rev.", "adjudicated": "adj.",
        "resolved": "stale"}  # fmt: skip
"""The work table's columns (`store.work_by_annotator()`'s keys), headed to fit half a
screen: queries made, spans, reviewed, adjudication decisions, stale spans resolved."""


def work_table(work: Mapping[str, Mapping[str, int]]) -> Table:
    """Who did what in spanlab: queries created, spans added, queries marked reviewed,
    adjudications, stale spans resolved (imports are not counted: a set imported reviewed
    shows no reviewer)."""
    # One cell of space between columns, not two: five counts leave the name room.
    table = Table(title="Work done in spanlab", title_justify="left", box=None, expand=True,
                  pad_edge=False, padding=(0, 0, 0, 1))  # fmt: skip
    table.add_column("annotator", ratio=1, no_wrap=True, overflow="ellipsis")
    for heading in WORK.values():
        table.add_column(heading, justify="right")
    for who, done in work.items():
        table.add_row(Text(shown(who, lines=False)), *(str(done[k]) for k in WORK))
    if not work:
        table.add_row("(none)", *("0" for _ in WORK))
    return table


def summary(stats: LabelStats) -> str:
    return (
        f"{stats.queries} queries · {stats.spans} spans · {stats.abstain} abstain · "
        f"{stats.multi_span} with several spans"
    )


class StatsScreen(Screen[None]):
    """Counts by status, pattern, slice and annotator; escape goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "app.go_back", "Back")]

    def __init__(self, store: Store) -> None:
        super().__init__()
        self._store = store

    def compose(self) -> ComposeResult:
        yield Static(id="stats-summary")
        with VerticalScroll(id="stats-body"):
            for pair in (("status", "annotator"), ("pattern", "slice")):
                with Horizontal(classes="stats-row"):
                    for part in pair:
                        yield Static(id=f"stats-{part}", classes="stats-table")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    def on_labels_changed(self, event: LabelsChanged) -> None:
        self.reload()

    def reload(self) -> None:
        store = self._store
        stats = label_stats(store.query_rows(), store.doc_span_counts(), store.work_by_annotator())
        n = stats.queries
        self.query_one("#stats-summary", Static).update(summary(stats))
        parts = {
            "status": bar_table("Queries by status", stats.by_status, n),
            "annotator": work_table(stats.work),
            "pattern": bar_table("Queries by pattern", stats.by_boundary, n),
            "slice": bar_table("Queries by slice", stats.by_slice, n),
        }
        for part, table in parts.items():
            self.query_one(f"#stats-{part}", Static).update(table)
