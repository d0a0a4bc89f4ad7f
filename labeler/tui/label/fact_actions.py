"""`F`: the current query's facts (§23), the answer labels beside its evidence.

With a selection in the document, the selected text becomes a new fact at once (a short
phrase a complete answer states); without one, the facts dialog lists them to type, give
alternatives and take out. Either is one edit through the editor: undo, compare-and-set.
"""

from __future__ import annotations

from labeler.core.display import shown
from labeler.core.errors import LabelError
from labeler.core.facts import Facts, with_fact
from labeler.core.values import Query
from labeler.tui.label.facts_screen import FactsDialog
from labeler.tui.label.showing import ShowingScreen

NO_QUERY = "Pick or create a query first (ctrl+n)."
"""Said when `F` has no query to label."""


class FactActions(ShowingScreen):
    """The facts key of the label screen."""

    def action_facts(self) -> None:
        q = self.state.current_query
        if q is None:
            self.notify(NO_QUERY, severity="warning")
            return
        sel, doc = self.view.selection, self.view.doc_id
        if sel is not None and doc is not None:
            self._fact_from_selection(q, self.editor.corpus.text(doc)[sel[0] : sel[1]])
            return

        def save(facts: Facts | None) -> None:
            self._save_facts(q, facts)

        self.app.push_screen(FactsDialog(q.id, q.facts), save)

    def _fact_from_selection(self, q: Query, text: str) -> None:
        try:
            facts = with_fact(q.id, q.facts, text)
        except LabelError as exc:
            self.notify(exc.message, title="Not a fact", severity="error", markup=False)
            return
        if self._save_facts(q, facts):
            self.view.clear_selection()
            said = shown(facts[-1][0], lines=False)
            self.notify(f"Fact {len(facts)} of {q.id}: {said}", timeout=3, markup=False)

    def _save_facts(self, seen: Query, facts: Facts | None) -> bool:
        """Save the facts as the dialog (or the selection) left them, against `seen`."""
        if facts is None or facts == seen.facts:
            return False
        return self._edit(
            lambda: self.editor.update_query(seen.id, seen=seen, facts=facts),
            seen.id,
            lambda: self.editor.reapply(seen.id, {"facts": facts}),
        )
