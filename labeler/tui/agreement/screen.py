"""The agreement screen: queries waiting for adjudication, least agreement first; the two
versions side by side over the text; and a reviewer's decision (§11).

`1` / `2` keep the first / second version, `m` merges them (overlapping spans joined),
`p` takes the boundary pattern from the other version, `b` sends the query back with a
note. Each decision is one store transaction with who and when; one that another
reviewer overtook is refused and shown, like any conflict. It is a mode of the app (its own
key, ctrl+o), so the query shown stays while the reviewer is on another screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown
from labeler.core.errors import SpanlabError
from labeler.core.store import Store, Verdict
from labeler.core.team.roles import Act, Member
from labeler.core.team.visibility import Sight
from labeler.tui.agreement.model import AgreementModel
from labeler.tui.agreement.widgets import VersionsView
from labeler.tui.messages import LabelsChanged
from labeler.tui.screens.dialogs import PromptScreen

STYLESHEET = Path(__file__).with_name("agreement.tcss")
"""The screen's stylesheet, beside it in the package."""


class AgreementScreen(Screen[None]):
    """Adjudicate double-annotated queries; escape goes back."""

    CSS_PATH = STYLESHEET
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.go_back", "Back"),
        Binding("1", "decide('keep', 0)", "Keep 1st"),
        Binding("2", "decide('keep', 1)", "Keep 2nd"),
        Binding("m", "decide('merge', -1)", "Merge"),
        Binding("p", "pattern_from", "Pattern from"),
        Binding("b", "send_back", "Send back"),
    ]

    def __init__(
        self,
        store: Store,
        corpus: Corpus,
        annotator: str,
        *,
        member: Member | None = None,
        sight: Sight | None = None,
    ) -> None:
        super().__init__()
        self.model = AgreementModel(store, corpus.text, sight)
        """The waiting queries and their versions."""
        self.annotator = annotator
        """Who decides."""
        self.member = member or Member(annotator, annotator)
        """Their login and team: `[team]` keeps decisions for leads (§15)."""
        self._lengths = {d.id: len(d.text) for d in corpus}
        self.current: str | None = None
        """The query shown."""
        self.pattern_from: str | None = None
        """Whose boundary pattern the decision takes (None: the version kept's)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="agreement-body"):
            yield OptionList(id="agreement-list")
            with VerticalScroll(id="agreement-detail"):
                yield Label(id="agreement-title")
                yield VersionsView(id="agreement-versions")
        yield Footer()

    def on_mount(self) -> None:
        asked = self.current  # set by `show_query` before the screen was mounted
        self.refill()
        if asked is not None and self.current != asked:
            self.notify(f"{asked} does not wait for adjudication.", timeout=2)

    def on_labels_changed(self, event: LabelsChanged) -> None:
        self.refill(advance=False)

    def show_query(self, query_id: str | None) -> None:
        """Show `query_id` (the label screen's `R`) when it waits; else stay where it was."""
        if not self.is_mounted:  # built just now by the switch: it opens on it
            self.current = query_id
        elif query_id is not None and self._index(query_id) is not None:
            self.query_one(OptionList).highlighted = self._index(query_id)
        elif query_id is not None:
            self.notify(f"{query_id} does not wait for adjudication.", timeout=2)

    def _index(self, query_id: str | None) -> int | None:
        ids = [r.query_id for r in self.model.rows]
        return ids.index(query_id) if query_id in ids else None

    def refill(self, *, advance: bool = True) -> None:
        """Read the waiting queries again, staying on the one shown if it still waits.

        After our own decision the next query is shown (`advance`); when someone else's
        commit took the shown one away, nothing is chosen for the person: a key pressed
        next must not decide a query they have not looked at.
        """
        self.model.load(self._lengths)
        options = self.query_one(OptionList)
        options.clear_options()
        for r in self.model.rows:
            line = shown(f"{r.query_id}  F1 {r.f1:.2f}  {'+'.join(r.pair)}", lines=False)
            options.add_option(Option(line, r.query_id))
        gone = self.current if self._index(self.current) is None else None
        if gone is not None:
            self.current = None
        if gone is not None and not advance and self.model.rows:
            options.highlighted = None
            self.query_one("#agreement-title", Label).update(
                f"{gone} was decided by someone else; ↑↓ picks the next query."
            )
            self.query_one(VersionsView).update("")
            return
        if not self.model.rows:
            self.query_one("#agreement-title", Label).update(
                "Nothing waits for adjudication (no query has two versions left to decide)."
            )
            self.query_one(VersionsView).update("")
            return
        index = self._index(self.current) or 0
        options.highlighted = index
        self.show(self.model.rows[index].query_id)
        options.focus()

    def show(self, query_id: str) -> None:
        if query_id != self.current:
            self.pattern_from = None
        self.current = query_id
        row = next(r for r in self.model.rows if r.query_id == query_id)
        title = f"{query_id} · F1 {row.f1:.2f} · {self.model.describe(query_id)}"
        if self.pattern_from is not None:
            title += f" · pattern from {self.pattern_from}"
        self.query_one("#agreement-title", Label).update(Content(shown(title, lines=False)))
        self.query_one(VersionsView).show(row.pair, self.model.sides(query_id))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.show(event.option.id)

    def _decide(self, verdict: Verdict, keep: list[str], note: str = "") -> None:
        qid = self.current
        if qid is None:
            return
        refused = self.member.refusal(Act.ADJUDICATE)
        if refused is not None:
            self.notify(refused, title="Not decided", severity="error")
            return
        texts = {d: self.model.text(d) for v in self.model.versions[qid].values()
                 for d in {s.doc for s in v.spans}}  # fmt: skip
        fields = {} if self.pattern_from is None else {"boundary": self.pattern_from}
        try:
            self.model.store.adjudicate(
                qid, verdict, keep=keep, note=note, annotator=self.annotator,
                seen=self.model.revisions[qid], texts=texts, fields=fields,
            )  # fmt: skip
        except SpanlabError as exc:
            self.notify(exc.message, title="Not decided", severity="error")
            self.refill(advance=False)
            return
        joins = "; ".join(self.model.store.last_decided(qid))
        said = f"{qid}: {verdict} {'+'.join(keep)}".strip() + (f" ({joins})" if joins else "")
        self.notify(said, timeout=4 if joins else 2)
        if verdict == "send-back":  # it still waits: the cursor moves on past it
            self.current = self._after(qid)
        self.refill()

    def _after(self, query_id: str) -> str | None:
        """The row after `query_id` in the list (wrapping), None when it is the only one."""
        ids = [r.query_id for r in self.model.rows]
        at = ids.index(query_id) if query_id in ids else 0
        rest = ids[at + 1 :] + ids[:at]
        return rest[0] if rest else None

    def action_pattern_from(self) -> None:
        """Take the boundary pattern from the next version in turn (then: the kept one's)."""
        row = next((r for r in self.model.rows if r.query_id == self.current), None)
        if row is None:
            return
        turn = [None, *row.pair]
        self.pattern_from = turn[(turn.index(self.pattern_from) + 1) % len(turn)]
        self.show(row.query_id)

    def action_decide(self, verdict: Verdict, which: int) -> None:
        row = next((r for r in self.model.rows if r.query_id == self.current), None)
        if row is not None:
            self._decide(verdict, list(row.pair) if which < 0 else [row.pair[which]])

    def action_send_back(self) -> None:
        def back(note: str | None) -> None:
            if note is not None:
                self._decide("send-back", [], note)

        self.app.push_screen(PromptScreen("Send back with a note"), back)
