"""The keys that edit the current query itself: its fields, status, copies, and undo.

Each edit is saved against the query as it was shown, so someone else's change in between
becomes a conflict to decide rather than a silent overwrite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from labeler.core.display import shown
from labeler.core.errors import SpanlabError
from labeler.core.store.conflicts import ConflictError
from labeler.core.values import Boundary, Query, Status
from labeler.tui.label.conflict import Choice, ConflictScreen
from labeler.tui.label.query_form import QueryFields, QueryForm
from labeler.tui.label.quick_fields import PatternPicker, SlicePrompt
from labeler.tui.label.showing import ShowingScreen
from labeler.tui.label.transitions_screen import TransitionsScreen
from labeler.tui.label.undo import Edit, Focus
from labeler.tui.screens.dialogs import ConfirmScreen
from labeler.tui.settings import settings_of

if TYPE_CHECKING:  # the chunkers load on the first `T`, not with the app
    from evaluator.pipeline.transitions import ToLabel
    from evaluator.plan.transitions import Transition

STATUS_CYCLE = {Status.DRAFT: Status.LABELLED, Status.LABELLED: Status.REVIEWED}
"""What `S` moves a status to (reviewed goes back to draft)."""
STATUS_BACK = {Status.REVIEWED: Status.LABELLED, Status.LABELLED: Status.DRAFT}
"""What `B` moves a status back to (draft goes round to reviewed)."""
DONE = {"undo": "Undone", "redo": "Redone"}
"""What the toast after an undo or a redo starts with."""
EMPTY_TITLE = "Not labelled"
"""The title of the refusal to label a query that has nothing to show for it."""


def empty_refusal(q: Query) -> str:
    """Why `S` (or `B`) will not take `q` out of draft: it has neither evidence nor abstention."""
    return (
        f"{q.id} has no evidence and does not abstain: draw a span (select, then a), or mark "
        "it abstaining (A). To label it empty on purpose: L (asks first)."
    )


def is_empty(q: Query) -> bool:
    """A query with no span and no abstention: labelling it would count nothing as done."""
    return not q.evidence and not q.abstain


class QueryActions(ShowingScreen):
    """Edit, create, copy, delete the current query; undo and redo."""

    def action_edit(self) -> None:
        q = self.state.current_query
        if q is None:
            return
        form = QueryForm(f"Edit {q.id}", QueryFields.of(q), has_evidence=bool(q.evidence))

        def save(fields: QueryFields | None) -> None:
            if fields is not None:
                self._save(q, fields.changes())

        self.app.push_screen(form, save)

    def _save(self, seen: Query, changes: dict[str, object]) -> None:
        """Save the fields that differ from what was shown; a conflict asks what to do."""
        changed = {k: v for k, v in changes.items() if getattr(seen, k) != v}
        self._edit(
            lambda: self.editor.update_query(seen.id, seen=seen, **changed),
            seen.id,
            lambda: self.editor.reapply(seen.id, changed),
        )

    def action_pattern(self) -> None:
        q = self.state.current_query
        if q is not None:
            self.app.push_screen(PatternPicker(q.id, q.boundary), self._saver(q, "boundary"))

    def action_slices(self) -> None:
        q = self.state.current_query
        if q is not None:
            known = self.editor.store.slices_in_use()
            self.app.push_screen(SlicePrompt(q.id, q.slices, known), self._saver(q, "slices"))

    def _saver(self, seen: Query, name: str) -> Callable[[object | None], None]:
        """Save one field as the dialog returns it (None: cancelled), against `seen`."""

        def save(value: object | None) -> None:
            if value is not None:
                self._save(seen, {name: value})

        return save

    def action_new(self) -> None:
        self.new_query(QueryFields("", Boundary.OTHER, (), Status.DRAFT, False, ""))

    def new_query(
        self, blank: QueryFields, made_on: Callable[[], None] | None = None, title: str = ""
    ) -> None:
        """The new query form from `blank`; once the query is made it is current, then
        `made_on` runs (the transitions screen selects its passage there)."""

        def create(fields: QueryFields | None) -> None:
            if fields is None:
                return
            made: list[Query] = []
            changes = fields.changes()
            text = str(changes.pop("text"))
            self._edit(lambda: made.append(self.editor.add_query(text, **changes)), None)
            if made:
                self._select(made[0].id)
                if made_on is not None:
                    made_on()

        self.app.push_screen(QueryForm(title or "New query", blank), create)

    def action_duplicate(self) -> None:
        current = self.state.current
        if current is None:
            return
        made: list[Query] = []
        self._edit(lambda: made.append(self.editor.duplicate_query(current)), None)
        if made:
            self._select(made[0].id)
            self.notify(f"Duplicated as {made[0].id}.", timeout=2)

    def action_delete_query(self) -> None:
        q = self.state.current_query
        if q is None:
            return
        neighbour = self.state.neighbour(self.query_list.ids, q.id)

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            self.state.current = neighbour  # stay where we were in the list
            if not self._edit(lambda: self.editor.delete_query(q.id, seen=q), q.id):
                self.state.current = q.id
            self._fill_list()
            self._show_current()
            self._goto_first_span()

        question = f"Delete {q.id} and its {len(q.evidence)} spans? (ctrl+z undoes it)"
        self.app.push_screen(ConfirmScreen(question), answer)

    def action_cycle_status(self, back: bool = False) -> None:
        """The status on (`back`: back) one step, round the cycle; in a blind view, where a
        reviewer decides, reviewed is passed over."""
        q = self.state.current_query
        if q is None:
            return
        steps = STATUS_BACK if back else STATUS_CYCLE
        then = steps.get(q.status, Status.REVIEWED if back else Status.DRAFT)
        if self.editor.store.view and then is Status.REVIEWED:
            then = steps.get(then, Status.DRAFT)
        if q.status is Status.DRAFT and then is not Status.DRAFT and is_empty(q):
            self.notify(empty_refusal(q), title=EMPTY_TITLE, severity="warning", markup=False)
            return
        self._save(q, {"status": then})

    def action_label_empty(self) -> None:
        """Label a draft with neither evidence nor abstention, after asking once: the only
        way a query becomes labelled empty, so one stray key never does it."""
        q = self.state.current_query
        if q is None:
            return
        if not is_empty(q) or q.status is not Status.DRAFT:
            why = "is not a draft" if q.status is not Status.DRAFT else "has evidence or abstains"
            self.notify(f"{q.id} {why}: S moves its status on.", title="Label empty",
                        markup=False)  # fmt: skip
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self._save(q, {"status": Status.LABELLED})

        # One line of the 70-column dialog: the title does not wrap.
        question = f"Label {q.id} empty: no evidence, no abstention? (counts as done)"
        self.app.push_screen(ConfirmScreen(question), answer)

    def action_transitions(self) -> None:
        """Transitions no query covers yet; enter starts a new query on one, its passage
        selected and its pattern set."""
        spans: dict[str, list[tuple[int, int]]] = {}
        for _, s in self.editor.store.spans():  # read here: the store stays on this thread
            spans.setdefault(s.doc, []).append((s.start, s.end))
        corpus, candidates = self.editor.corpus, settings_of(self.app).candidates

        def find(stop: Callable[[], bool]) -> ToLabel | None:
            from evaluator.pipeline.transitions import project_transitions

            return project_transitions(corpus, spans, candidates, stop)

        screen = TransitionsScreen(find, corpus.text, self.transition_place)
        self.app.push_screen(screen, self._write_on)

    def _write_on(self, t: Transition | None) -> None:
        if t is None:
            return
        blank = QueryFields("", t.kind, (), Status.DRAFT, False, "")

        def select() -> None:
            if t.doc in self.editor.corpus:  # the corpus may have changed meanwhile
                self.open_document(t.doc)
                self.view.select(t.start, t.end)
                self.view.focus()

        self.new_query(blank, select, f"New query on {shown(t.doc, lines=False)} @{t.start:,}")

    def action_status_back(self) -> None:
        self.action_cycle_status(back=True)

    def action_toggle_abstain(self) -> None:
        q = self.state.current_query
        if q is not None:
            self._save(q, {"abstain": not q.abstain})

    def action_toggle_versions(self) -> None:
        self.state.by_annotator = not self.state.by_annotator
        self._refresh_marks()

    def _replay(self, step: Callable[..., tuple[Edit, Focus] | None], verb: str) -> None:
        """`verb` is "undo" or "redo"; the toast after it says "Undone: …" or "Redone: …"."""
        try:
            done = step()
        except ConflictError as exc:
            self._replay_conflict(exc, step, verb)
            return
        except SpanlabError as exc:
            self.notify(exc.message, title=f"Cannot {verb}", severity="error")
            self.reload()
            return
        if done is None:
            self.notify(f"Nothing to {verb}.", timeout=2)
            return
        edit, focus = done
        self._count_progress()  # a span or status undone can change what is done
        self.state.refresh(focus.query_id)
        if focus.query_id in self.state.queries:
            self.state.current = focus.query_id
        self._fill_list()
        self._show_current()
        if focus.doc is not None and focus.doc in self.editor.corpus:
            self.open_document(focus.doc)
            self.view.go_to(focus.offset or 0)
        self.notify(f"{DONE[verb]}: {edit.label}", timeout=2)

    def _replay_conflict(
        self, exc: ConflictError, step: Callable[..., tuple[Edit, Focus] | None], verb: str
    ) -> None:
        """Undo would revert someone else's edit: reload (and drop it), or force it."""

        def chosen(choice: Choice | None) -> None:
            if choice == "reapply":
                self._replay(lambda: step(force=True), verb)
                return
            self.editor.history.discard(verb)
            self.reload()

        self.app.push_screen(ConflictScreen(exc.message, verb=verb), chosen)

    def action_undo(self) -> None:
        self._replay(self.editor.undo, "undo")

    def action_redo(self) -> None:
        self._replay(self.editor.redo, "redo")
