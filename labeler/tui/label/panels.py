"""Two one-glance panels: the current query's fields, and where the cursor is.

Plain `Static`s the screen fills; they format, and hold no state of their own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Label, Static

from labeler.core.display import shown
from labeler.core.values import Query, evidence_groups
from labeler.tui.label.query_list import GLYPHS
from labeler.tui.widgets.document_view import annotators_of


def query_meta(q: Query, me: str, *, note: bool = True) -> Text:
    """One line: id, status, evidence (by annotator when several), pattern, slices, and
    the note unless `note` is false."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"{q.id} ", style="bold")
    line.append(f"{GLYPHS[q.status]} {q.status.value} · ")
    if q.abstain:
        line.append("abstain", style="bold italic")
    else:
        per = Counter(s.annotator for s in q.evidence)
        count = f"{len(q.evidence)} span" + ("" if len(q.evidence) == 1 else "s")
        if len(per) > 1:
            who = annotators_of(q.evidence, me)
            count += " (" + ", ".join(f"{shown(n, lines=False)} {per[n]}" for n in who) + ")"
        line.append(count, style="bold" if q.evidence else "dim")
        for size in alternatives(q):
            line.append(f" · any of {size}", style="italic")
    line.append(f" · {q.boundary.value}")
    if q.slices:
        line.append(" · " + shown(", ".join(q.slices), lines=False), style="italic")
    if q.notes and note:
        line.append(" · ✎ " + shown(q.notes, lines=False), style="dim")
    return line


def alternatives(q: Query) -> list[int]:
    """The sizes of the query's groups of two or more alternatives (§18), in order."""
    return [len(g) for g in evidence_groups(q.evidence) if len(g) > 1]


def query_summary(
    q: Query | None, me: str, hidden: int = 0, lost: str | None = None
) -> RenderableType:
    """The meta line, then the question (wrapped); `hidden`: queries the filter hides;
    `lost`: the query someone else deleted from under the cursor."""
    if q is None and lost:
        return Text(f"{lost} was deleted by someone else. Pick a query in the list (↑↓).",
                    style="dim")  # fmt: skip
    if q is None and hidden:
        return Text(f"No query matches the filter ({hidden} hidden). Press f to change it.",
                    style="dim")  # fmt: skip
    if q is None:
        return Text("No query. Press ctrl+n to create one.", style="dim")
    meta = query_meta(q, me, note=False)
    meta.no_wrap, meta.overflow = False, "fold"  # pattern and slices wrap, not cut
    # The note after the question: a long note is what the panel's height cuts, not it.
    note = [Text("✎ " + shown(q.notes, lines=False), style="dim")] if q.notes else []
    return Group(meta, Text(shown(q.text), style="bold"), *facts_line(q), *note)


def facts_line(q: Query) -> list[Text]:
    """`facts: 30 days (+1) · refund` — each fact by its preferred phrasing, with how many
    others it has (§23); nothing for a query without facts."""
    if not q.facts:
        return []
    said = " · ".join(f[0] + (f" (+{len(f) - 1})" if len(f) > 1 else "") for f in q.facts)
    return [Text("facts: " + shown(said, lines=False), style="italic")]


class QueryPanel(Static):
    """The current query at the top of the document pane."""

    DEFAULT_CSS = """
    QueryPanel {
        height: auto;
        max-height: 8;
        padding: 0 1;
        background: $panel;
    }
    """

    def show(self, q: Query | None, me: str, hidden: int = 0, lost: str | None = None) -> None:
        """Show the query; the screen is laid out again only when the panel's height
        changes (a relayout was a third of a `J`/`K` switch over SSH)."""
        summary = query_summary(q, me, hidden, lost)
        self.update(summary, layout=self._rows(summary) != self.content_region.height)

    def _rows(self, summary: RenderableType) -> int:
        """How many rows `summary` takes at the panel's width (at most `max-height`)."""
        width = self.content_region.width
        if not width:
            return -1  # not laid out yet
        options = self.app.console.options.update_width(width)
        lines = len(self.app.console.render_lines(summary, options, pad=False))
        most = self.styles.max_height
        return min(lines, int(most.value)) if most is not None and most.is_cells else lines


BAR_CELLS = 46
"""The cursor bar's text width in an 80-column terminal: what it fits before it is laid out."""


def cursor_line(
    doc: str | None,
    offset: int,
    length: int,
    selection: tuple[int, int] | None,
    mode: str = "",
    span: tuple[int, int] | None = None,
    group: int | None = None,
    *,
    width: int = BAR_CELLS,
    source: str = "",
) -> str:
    """`doc @offset/length`, or `doc sel start–end (n)` while selecting, in `width` cells.

    `source`: where the cursor is in an extracted document's source (`page 3`, §22), shown
    after the offset; an element path longer than SOURCE_CELLS keeps its end.

    `span` (n, m): the cursor is in span n of the query's m, shown first as `span n/m`;
    `group`: that span is one of several alternatives (§18), shown `span n/m any-of g`.
    The document path gives way first (`short_path`), so the span number and the offset
    stay whole; only a legend (`mode`) too long for the rest is cut at the end.
    """
    if doc is None:
        return "no document (o opens one)"
    if selection is None:
        where = f" @{offset}/{length}"
    else:
        where = f" sel {selection[0]}–{selection[1]} ({selection[1] - selection[0]})"
    if source:
        source = shown(source, lines=False)
        cut = "…" + source[-(SOURCE_CELLS - 1) :] if len(source) > SOURCE_CELLS else source
        where += f" · {cut}"
    head = ""
    if span is not None:
        alt = f" any-of {group}" if group is not None else ""
        head = f"span {span[0]}/{span[1]}{alt} · "
    tail = f" · {mode}" if mode else ""
    room = width - cell_len(head + where + tail)
    return head + short_path(shown(doc, lines=False), max(room, PATH_CELLS)) + where + tail


SOURCE_CELLS = 24
"""The most cells an extracted document's place takes in the cursor bar."""
PATH_CELLS = 12
"""The fewest cells a document path is cut to: `…/name` or `retu…ess.md` still says which."""


def short_path(path: str, cells: int) -> str:
    """`path` in at most `cells` cells: whole, else `…/` and its file name, else the file
    name cut in the middle (`retur…ocess.md`), so the folder goes before the extension."""
    if cell_len(path) <= cells:
        return path
    name = path.rsplit("/", 1)[-1]
    if cell_len(name) + 2 <= cells:
        return "…/" + name
    back = (cells - 1) // 2
    return _fit(name, cells - 1 - back) + "…" + _fit(name[::-1], back)[::-1]


def _fit(text: str, cells: int) -> str:
    """The longest start of `text` that fits `cells` (a wide character that would not
    fit whole is left out)."""
    out, used = [], 0
    for ch in text:
        used += cell_len(ch)
        if used > cells:
            break
        out.append(ch)
    return "".join(out)


class CursorBar(Static):
    """Document, cursor offset and selection, under the query panel, fitted to its width."""

    DEFAULT_CSS = """
    CursorBar {
        height: 1;
        padding: 0 1;
        background: $boost;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self._line: Callable[[int], str] | None = None
        self._shown = ""

    def show(self, line: Callable[[int], str]) -> None:
        """Show `line(width)`, and again with the new width whenever the bar is resized."""
        self._line = line
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        if self._line is not None:
            line = self._line(self.content_region.width or BAR_CELLS)
            if line != self._shown:  # the same line again (a repeated cursor message): no frame
                self._shown = line
                # one row, always: no relayout of the screen for a new line
                self.update(line, layout=False)


TITLE_CELLS = 29
"""The list title's text width in an 80-column terminal: what it fits before it is laid out."""


def clock(seconds: float) -> str:
    """`<1m`, `3m05s`, `1h02m`: a pace at a glance (nobody labels a query in seconds)."""
    whole = round(seconds)
    if whole < 60:
        return "<1m"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def progress_forms(done: int, of: int, today: int, pace: float | None) -> tuple[str, ...]:
    """The progress line, longest form first: each later one drops a word to fit."""
    each = () if pace is None else (f" · {clock(pace)}/query", f" · {clock(pace)}")
    day = f" · {today} today"
    return (*(f"{done}/{of} done{day}{e}" for e in each), f"{done}/{of} done{day}",
            f"{done}/{of}{day}", f"{done}/{of} done")  # fmt: skip


def count_forms(listed: int, total: int | None, me: str) -> tuple[str, ...]:
    """The list's first line, longest form first; `total` None while rows are read."""
    many = f"{listed}/{total}" if total is not None else f"reading {listed}"
    me = shown(me, lines=False)
    return f"{many} queries · {me}", f"{many} · {me}", f"{many} queries"


def fitted(forms: Sequence[str], width: int) -> str:
    """The first form that fits `width` cells, else the last (the widget cuts it)."""
    return next((f for f in forms if cell_len(f) <= width), forms[-1])


class ListTitle(Label):
    """Over the query list: how many queries and whose, then the annotator's progress,
    each the longest form that fits one row (at 80×24 every row of the list counts)."""

    DEFAULT_CSS = """
    ListTitle {
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-refused { text-wrap: wrap; color: $text-error; text-style: bold; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self._lines: tuple[Sequence[str], ...] = ()

    def show(self, *lines: Sequence[str]) -> None:
        """Show one row per entry of `lines`, each a sequence of forms, longest first."""
        self._lines = lines
        self.remove_class("-refused")
        self._fit()

    def refuse(self, message: str) -> None:
        """A message in place of the lines (a filter that does not parse), wrapped whole."""
        self._lines = ()
        self.add_class("-refused")
        self.update(message)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        if self._lines:
            width = self.content_region.width or TITLE_CELLS
            self.update("\n".join(fitted(forms, width) for forms in self._lines))
