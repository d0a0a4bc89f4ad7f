"""What the label screen knows, kept apart from Textual: the query rows, the current query,
the filter, the spans of the documents shown, and the marks to draw.

The list holds light `QueryRow`s (no spans), read a chunk at a time by a `RowLoader`, so
100,000 queries show their first page at once; only the current query is read whole, and
only the open document's spans are read for the faint "other queries" marks. Edits refresh
one query, never the whole store. Tested without a terminal.
"""

from __future__ import annotations

import contextlib
import gc
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator
from operator import attrgetter, itemgetter

from labeler.core.display import shown
from labeler.core.errors import SpanlabError
from labeler.core.store import QueryRow, Store
from labeler.core.values import Query, Span
from labeler.tui.label.editor import Editor
from labeler.tui.label.filters import QueryFilter, haystack
from labeler.tui.widgets.document_view import Mark, alternatives_in, annotators_of, marks_for

PAGE = 200
"""Rows read before the list is first shown: more than any terminal is tall."""
CHUNK = 500
"""Rows a loader reads per step (about 10 ms; 2,000 took 40 ms on a loaded machine)."""
DOCS_KEPT = 8
"""Documents whose spans stay cached (the annotator moves between a few)."""
CATCH_UP = 200
"""Most queries re-read one by one after others' edits; more, and every row is read."""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No full garbage collection while rows are read: one walks every live object (the
    rows read so far among them) and made a step of 500 rows take 150 ms instead of 10.
    Reference counting still frees what is dropped; the collector resumes afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def rows_settled() -> None:
    """Every row is read and will live as long as the screen: put what is alive now out of
    the collector's sight (`gc.freeze`), so no later full collection walks them again (one
    took 0.2 s at 100,000 rows: a key's wait, at a moment no one chooses). Rows dropped
    later are still freed by reference counting: they hold no cycles."""
    gc.freeze()


class RowLoader:
    """Reads every query row in id order, one chunk per `step`, into fresh dicts.

    The screen yields to Textual between steps; the rows it shows meanwhile stay as they
    were until `LabelState.adopt` swaps the new ones in.
    """

    def __init__(self, store: Store, chunk: int = CHUNK) -> None:
        self.store = store
        self.chunk = chunk
        """Rows per step."""
        self.rows: dict[str, QueryRow] = {}
        """Rows read so far, by id, in id order."""
        self.hay: dict[str, str] = {}
        """Their filter haystacks, in the same order."""
        self.done = False
        """Whether the last row has been read."""
        self.event_id = store.last_event_id()
        """The audit log's newest entry before the first row was read."""

    def step(self) -> bool:
        """Read the next chunk; True once every row has been read."""
        after = next(reversed(self.rows), None)
        chunk = self.store.query_rows(after=after, limit=self.chunk)
        for row in chunk:
            self.rows[row.id] = row
            self.hay[row.id] = haystack(row)
        self.done = len(chunk) < self.chunk
        return self.done


class LabelState:
    """The query rows by id, the current query, the filter and the span caches."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.queries: dict[str, QueryRow] = {}
        """Every query row known, by id, in id order (all of them once `complete`)."""
        self.complete = False
        """Whether `queries` holds every query (False while a loader is still reading)."""
        self.current: str | None = None
        """The query being labelled."""
        self.filter = QueryFilter()
        """What the query list shows."""
        self.by_annotator = False
        """Whether the current query's spans are coloured by annotator."""
        self.lost: str | None = None
        """A query someone else took away from under the cursor: until the person picks
        one, no other becomes current in its place (their next key must not edit it)."""
        self.visited: int | None = None
        """The id of the current query's span the cursor last rested in (`+` adds the
        selection as its alternative, §18)."""
        self._hay: dict[str, str] = {}
        self._full: Query | None = None
        self._doc_spans: dict[str, list[tuple[str, Span]]] = {}
        self._others: dict[str, tuple[list[Mark], set[str]]] = {}
        """Per document: every query's marks drawn as others', sorted, and the queries
        edited since (their marks there are out of date)."""
        self._touched: set[str] = set()
        self._event_id = 0

    @property
    def current_query(self) -> Query | None:
        """The current query whole, with its evidence (read when the current one changes)."""
        if self.current is None:
            return None
        if self._full is None or self._full.id != self.current:
            try:
                self._full = self.editor.store.query(self.current)
            except SpanlabError:
                return None
        return self._full

    @property
    def shown(self) -> Query | None:
        """The current query as last read (and shown), without reading it again."""
        return self._full if self._full is not None and self._full.id == self.current else None

    @property
    def total(self) -> int:
        """How many queries the store holds (known before every row is read)."""
        return len(self.queries) if self.complete else self.editor.store.count("queries")

    # -- reading -----------------------------------------------------------------------------

    def first_page(self, size: int = PAGE) -> bool:
        """Rows to show at once, from the current query on; True when that was every row."""
        store = self.editor.store
        self.complete = False
        self._event_id = store.last_event_id()
        rows = store.query_rows(start=self.current, limit=size) if self.current else []
        if not rows or rows[0].id != self.current:
            rows = store.query_rows(limit=size)
            self.complete = len(rows) < size
        self._set_rows({r.id: r for r in rows}, {r.id: haystack(r) for r in rows})
        return self.complete

    def reload(self) -> None:
        """Read every row at once (headless use; the screen steps a `loader` instead)."""
        loader = self.loader()
        while not loader.step():
            pass
        self.adopt(loader)

    def loader(self, chunk: int = CHUNK) -> RowLoader:
        """Start reading every row again; edits made meanwhile are re-read on `adopt`."""
        self._touched.clear()
        return RowLoader(self.editor.store, chunk)

    def adopt(self, loader: RowLoader) -> None:
        """Show what a finished loader read (at start, and after another annotator's change)."""
        self._set_rows(loader.rows, loader.hay)
        self.complete = True
        self._event_id = loader.event_id
        for query_id in sorted(self._touched):
            self._put(query_id, self._read(query_id))
        self._touched.clear()

    def catch_up(self) -> bool:
        """Re-read the queries others' logged edits touched, after their commit.

        False when the audit log cannot account for the change (rows still being read, a
        bulk import, too many queries): then every row must be read again.
        """
        store = self.editor.store
        last, touched = store.touched_since(self._event_id)
        if not self.complete or not touched or len(touched) > CATCH_UP:
            return False
        for query_id in touched:
            self.refresh(query_id)
        self._event_id = last
        return store.count("queries") == len(self.queries)

    def _set_rows(self, rows: dict[str, QueryRow], hay: dict[str, str]) -> None:
        self.queries, self._hay = rows, hay
        self.forget()

    def forget(self) -> None:
        """Drop the current query and the spans read so far: another annotator may have
        changed them."""
        self._full = None
        self._doc_spans.clear()
        self._others.clear()

    def _read(self, query_id: str) -> Query | None:
        try:
            return self.editor.store.query(query_id)
        except SpanlabError:
            return None

    def _put(self, query_id: str, new: Query | None) -> None:
        if new is None:
            self.queries.pop(query_id, None)
            self._hay.pop(query_id, None)
            return
        row = QueryRow.of(new)
        last = next(reversed(self.queries), query_id)
        added = query_id not in self.queries
        self.queries[query_id], self._hay[query_id] = row, haystack(row)
        if added and query_id < last:  # keep id order (new ids mostly come last)
            self.queries = dict(sorted(self.queries.items()))
            self._hay = {k: self._hay[k] for k in self.queries}

    def refresh(self, query_id: str) -> tuple[QueryRow | None, QueryRow | None]:
        """Re-read one query after our own edit; returns its row before and after."""
        old = self.queries.get(query_id)
        new = self._read(query_id)
        self._touched.add(query_id)
        self._put(query_id, new)
        if self.current == query_id:
            self._full = new
        self._reindex(query_id, new)
        return old, self.queries.get(query_id)

    def _reindex(self, query_id: str, new: Query | None) -> None:
        for _, edited in self._others.values():  # its marks there are out of date
            edited.add(query_id)
        for doc, spans in self._doc_spans.items():
            kept = [(q, s) for q, s in spans if q != query_id]
            kept += [(query_id, s) for s in (new.evidence if new else ()) if s.doc == doc]
            self._doc_spans[doc] = kept

    # -- the list ----------------------------------------------------------------------------

    def listed(self, *, pin: bool = True) -> tuple[list[QueryRow], bool]:
        """The rows the filter lets through (`pin` keeps the current one among them).

        When the current query is not listed, the first listed one becomes current; the
        flag says that happened, so the screen shows it.
        """
        f, rows = self.filter, self.queries
        shown = f.select(rows.values(), self._hay)
        if self.current is None and self.lost is not None:
            return shown, False
        at = rows.get(self.current or "")
        kept = at is not None and f.keeps(at, self._hay[at.id])
        if at is not None and pin and not kept:
            shown.insert(bisect_left(shown, at.id, key=attrgetter("id")), at)
        moved = at is None or not (pin or kept)
        if moved:
            self.current = shown[0].id if shown else None
        return shown, moved

    @staticmethod
    def neighbour(ids: list[str], query_id: str) -> str | None:
        """The query to show once `query_id` is gone: the next one, else the previous."""
        at = ids.index(query_id) if query_id in ids else 0
        rest = ids[at + 1 :] + ids[:at][::-1]
        return rest[0] if rest else None

    # -- spans and marks -----------------------------------------------------------------------

    def _spans_in(self, doc: str) -> list[tuple[str, Span]]:
        """Every query's spans in `doc`, read once while the document stays in use."""
        if doc not in self._doc_spans:
            if len(self._doc_spans) >= DOCS_KEPT:
                self._doc_spans.pop(next(iter(self._doc_spans)))
            self._doc_spans[doc] = self.editor.store.spans(docs=[doc])
        return self._doc_spans[doc]

    def _all_marks(self, doc: str) -> list[Mark]:
        """Every query's marks in `doc` as others', sorted: built once per document (and
        after an edit to a query other than the current), so a `J`/`K` switch filters
        2,000 marks rather than building them again."""
        entry = self._others.get(doc)
        if entry is None or entry[1] - {self.current}:
            if entry is None and len(self._others) >= DOCS_KEPT:
                self._others.pop(next(iter(self._others)))
            marks = sorted(marks_for(doc, self._spans_in(doc), None), key=itemgetter(0, 1))
            entry = self._others[doc] = (marks, set())
        return entry[0]

    def knows_others(self, doc: str) -> bool:
        """Whether other queries' marks in `doc` are built and current (no store read)."""
        entry = self._others.get(doc)
        return entry is not None and not entry[1] - {self.current}

    def marks(self, doc: str, *, others: bool = True) -> list[Mark]:
        """Marks for `doc`: other queries' spans (unless `others` is False), then the
        current query's."""
        theirs = [m for m in self._all_marks(doc) if m.query_id != self.current] if others else []
        q = self.current_query
        mine = [(q.id, s) for s in q.evidence if s.doc == doc] if q else []
        alternatives = alternatives_in(q.evidence) if q else frozenset()
        return theirs + marks_for(
            doc, mine, self.current, by_annotator=self.by_annotator, me=self.editor.annotator,
            alternatives=alternatives,
        )  # fmt: skip

    def _evidence(self) -> list[Span]:
        q = self.current_query
        return [s for s in q.evidence if s.doc in self.editor.corpus] if q else []

    def first_span(self, doc: str | None) -> Span | None:
        """The current query's first span in `doc`, else its first anywhere."""
        spans = self._evidence()
        here = [s for s in spans if s.doc == doc] or spans
        return here[0] if here else None

    def next_span(self, doc: str, offset: int, *, forward: bool) -> tuple[str, int] | None:
        """The span after (or before) a place, over every document, wrapping round."""
        spans = [(s.doc, s.start) for s in self._evidence()]
        if not spans:
            return None
        if forward:
            return next((x for x in spans if x > (doc, offset)), spans[0])
        return next((x for x in reversed(spans) if x < (doc, offset)), spans[-1])

    def span_counts(self) -> tuple[Counter[str], dict[str, int]]:
        """Spans per document: the current query's, and everyone's."""
        q = self.current_query
        mine = Counter(s.doc for s in q.evidence) if q else Counter[str]()
        return mine, self.editor.store.doc_span_counts()

    def span_number(self, doc: str | None, offset: int) -> tuple[int, int] | None:
        """(n, m): the cursor is in the current query's span n of m (the innermost, when
        spans nest), counted in evidence order across documents; None outside them."""
        q = self.current_query
        spans = q.evidence if q else ()
        inside = [i for i, s in enumerate(spans, 1) if s.doc == doc and s.start <= offset < s.end]
        return (inside[-1], len(spans)) if inside else None

    def span_group(self, number: int) -> int | None:
        """The group of the current query's span `number` (1-based), when it has
        alternatives (§18); None for a span that is a group of its own."""
        q = self.current_query
        if q is None or not 0 < number <= len(q.evidence):
            return None
        group = q.evidence[number - 1].group
        mates = [s for s in q.evidence if group is not None and s.group == group]
        return group if len(mates) > 1 else None

    def visit(self, doc: str | None, offset: int) -> None:
        """Remember the current query's span under the cursor, for `+` (§18)."""
        q = self.current_query
        spans = q.evidence if q else ()
        inside = [s for s in spans if s.doc == doc and s.start <= offset < s.end]
        if inside:
            self.visited = inside[-1].id

    @property
    def visited_span(self) -> Span | None:
        """The current query's span the cursor last rested in (as shown), if any."""
        q = self.current_query
        return next((s for s in (q.evidence if q else ()) if s.id == self.visited), None)

    def legend(self) -> str:
        """`A ann · B bob` while spans are coloured by annotator."""
        q = self.current_query
        if not self.by_annotator or q is None:
            return ""
        names = annotators_of(q.evidence, self.editor.annotator) or ["-"]
        return shown(f"A {names[0]} · B {', '.join(names[1:]) or '-'}", lines=False)
