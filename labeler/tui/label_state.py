"""What the label screen knows, kept apart from Textual: queries, the current one, the
filter, spans by document, and the marks to draw.

The screen asks this object questions and sets widgets from the answers, so the bookkeeping
(which query is current after a delete, which spans to redraw after an edit, where the next
span is) is tested without a terminal. Edits refresh one query, never the whole store.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from labeler.core.errors import SpanlabError
from labeler.core.values import Query, Span
from labeler.tui.editor import Editor
from labeler.tui.filters import QueryFilter
from labeler.tui.marks import Mark, annotators_of, marks_for


class LabelState:
    """Every query by id, the current one, the filter and the span index."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.queries: dict[str, Query] = {}
        """Every query in the store, by id, in id order."""
        self.current: str | None = None
        """The query being labelled."""
        self.filter = QueryFilter()
        """What the query list shows."""
        self.by_annotator = False
        """Whether the current query's spans are coloured by annotator."""
        self._spans: dict[str, list[tuple[str, Span]]] = {}
        self._others: dict[tuple[str, str | None], list[Mark]] = {}

    @property
    def current_query(self) -> Query | None:
        return None if self.current is None else self.queries.get(self.current)

    # -- reading -----------------------------------------------------------------------------

    def reload(self) -> None:
        """Read every query again (at start, and after another annotator's change)."""
        self.queries = {q.id: q for q in self.editor.store.queries()}
        if self.current not in self.queries:
            self.current = None
        by_doc: defaultdict[str, list[tuple[str, Span]]] = defaultdict(list)
        for q in self.queries.values():
            for s in q.evidence:
                by_doc[s.doc].append((q.id, s))
        self._spans = dict(by_doc)
        self._others.clear()

    def refresh(self, query_id: str) -> tuple[Query | None, Query | None]:
        """Re-read one query after our own edit; returns it before and after."""
        old = self.queries.get(query_id)
        try:
            new: Query | None = self.editor.store.query(query_id)
        except SpanlabError:
            new = None
        if new is None:
            self.queries.pop(query_id, None)
        else:
            self.queries[query_id] = new
            if old is None:  # a new id: keep the list in id order
                self.queries = dict(sorted(self.queries.items()))
        self._reindex(query_id, old, new)
        return old, new

    def _reindex(self, query_id: str, old: Query | None, new: Query | None) -> None:
        # Cached marks of other queries stay valid only where this query is the current one.
        self._others = {k: v for k, v in self._others.items() if k[1] == query_id}
        docs = {s.doc for q in (old, new) if q is not None for s in q.evidence}
        for doc in docs:
            kept = [(q, s) for q, s in self._spans.get(doc, []) if q != query_id]
            kept += [(query_id, s) for s in (new.evidence if new else ()) if s.doc == doc]
            self._spans[doc] = kept

    # -- the list ----------------------------------------------------------------------------

    def listed(self, *, pin: bool = True) -> tuple[list[Query], bool]:
        """The queries the filter lets through (`pin` keeps the current one among them).

        When the current query is not listed, the first listed one becomes current; the
        flag says that happened, so the screen shows it.
        """
        keep = self.current if pin else None
        shown = [q for q in self.queries.values() if self.filter.matches(q) or q.id == keep]
        moved = self.current not in {q.id for q in shown}
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

    def marks(self, doc: str) -> list[Mark]:
        """Marks for `doc`: other queries' spans (built once per current query), then ours."""
        key = (doc, self.current)
        if key not in self._others:
            spans = [(q, s) for q, s in self._spans.get(doc, []) if q != self.current]
            self._others[key] = marks_for(doc, spans, self.current)
        q = self.current_query
        mine = [(q.id, s) for s in q.evidence if s.doc == doc] if q else []
        me = self.editor.annotator
        return self._others[key] + marks_for(
            doc, mine, self.current, by_annotator=self.by_annotator, me=me
        )

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
        return mine, {doc: len(spans) for doc, spans in self._spans.items()}

    def legend(self) -> str:
        """`A ann · B bob` while spans are coloured by annotator."""
        q = self.current_query
        if not self.by_annotator or q is None:
            return ""
        names = annotators_of(q.evidence, self.editor.annotator) or ["-"]
        return f"A {names[0]} · B {', '.join(names[1:]) or '-'}"
