"""The screens of the one app, one entry each: name, key, palette text, keys for `?`, how
to build it from the app's world, and why it cannot open yet (no store, no run, spans
waiting). Adding a screen is one `Mode(...)` in `MODES`.

Each entry becomes a Textual mode, so every screen keeps its own stack and state while the
person is elsewhere. Builders read the world through the `World` protocol, never the app.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.binding import Binding, BindingType
from textual.screen import Screen

from labeler.core.anchoring import binding
from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.team.roles import Act, Member
from labeler.core.team.visibility import Sight
from labeler.tui.label import Editor, LabelScreen
from labeler.tui.widgets.document_view import DocumentView

if TYPE_CHECKING:
    from evaluator.runs.diff import RunDiff  # run.json's model: triage of a diff only

KeyGroups = list[tuple[str, Sequence[BindingType]]]
"""Titled lists of bindings, as `HelpScreen` shows them."""


class World(Protocol):
    """What the CLI hands the app (STYLE habit 1), as the screens' builders read it."""

    store: Store | None
    corpus: Corpus
    annotator: str
    member: Member
    sight: Sight
    runs_dir: Path | None
    run_id: str | None
    texts: Mapping[str, str] | None
    prefs: Path | None
    diff: RunDiff | None

    @property
    def editor(self) -> Editor:
        """The label editor (raises StoreError when there is no store)."""
        ...


@dataclass(frozen=True)
class Mode:
    name: str
    """The mode's name, as `spanlab <name>` and `SpanlabApp(screen=…)` spell it."""
    key: str
    """The app-wide key that switches to it."""
    title: str
    """Its name in the palette and the help."""
    help: str
    """The palette's line under the title."""
    build: Callable[[World], Screen[Any]]
    """Its first screen, built the first time the person goes there."""
    missing: Callable[[World], str | None]
    """Why it cannot open now (None: it can)."""
    groups: Callable[[], KeyGroups]
    """Its keys, for `?`, grouped and titled."""
    package: str = ""
    """Its package when importing it takes seconds (a thread imports it while the app says
    it is loading); empty when it is quick."""


def list_keys() -> list[BindingType]:
    """The triage lists' keys: IdList's enter over OptionList's, then the moves."""
    from textual.widgets import OptionList

    from labeler.tui.triage.widgets import IdList

    own = [b for b in IdList.BINDINGS if isinstance(b, Binding)]
    keys = {b.key for b in own}
    return [*own, *(b for b in OptionList.BINDINGS if isinstance(b, Binding) and b.key not in keys)]


def label_keys() -> KeyGroups:
    return [("Document", DocumentView.BINDINGS), ("Label screen", LabelScreen.BINDINGS)]


def triage_keys() -> KeyGroups:
    """Both triage screens' keys; titles fit the help's 16-column key column."""
    from labeler.tui.triage import QueryScreen, TriageScreen

    return [
        ("Triage screen", TriageScreen.BINDINGS),
        ("Lists", list_keys()),
        ("Query screen", QueryScreen.BINDINGS),
    ]


def review_keys() -> KeyGroups:
    from labeler.tui.review import ReviewScreen  # re-anchoring (rapidfuzz): when opened

    return [("Review screen", ReviewScreen.BINDINGS)]


def agreement_keys() -> KeyGroups:
    from labeler.tui.agreement.screen import AgreementScreen

    return [("Agreement", AgreementScreen.BINDINGS)]


def stats_keys() -> KeyGroups:
    from labeler.tui.screens.stats import StatsScreen

    return [("Stats", StatsScreen.BINDINGS)]


def no_store(world: World) -> str | None:
    if world.store is None:
        return "no label store here: run spanlab in the project folder"
    return None


def label_missing(world: World) -> str | None:
    if world.store is None:
        return no_store(world)
    refused = world.member.refusal(Act.LABEL)  # someone off the team, come from triage
    if refused is not None:
        return refused
    if world.sight.blind and world.store.view != world.member.name:  # opened by triage, say
        return BLIND_LABEL
    waiting = binding.sync(world.store, world.corpus).waiting
    return f"{waiting} span(s) wait for review first (ctrl+r)" if waiting else None


BLIND_LABEL = (
    "blind (the project's `blind = true`): label in `spanlab label`, which shows you only "
    "your own version of each query"
)
"""Why the label screen does not open in an app that does not read the member's version."""


def triage_missing(world: World) -> str | None:
    from evaluator.runs.index import list_runs  # run.json's model: only when asked for

    if world.runs_dir is None or not list_runs(world.runs_dir):
        return "no run yet: `spanlab eval` makes one"
    return None


def build_label(world: World) -> Screen[Any]:
    return LabelScreen(world.editor, prefs=world.prefs)


def build_review(world: World) -> Screen[Any]:
    assert world.store is not None
    binding.sync(world.store, world.corpus)
    from labeler.tui.review import ReviewScreen

    return ReviewScreen(world.store, world.corpus, annotator=world.annotator, member=world.member,
                        sight=world.sight)  # fmt: skip


def build_triage(world: World) -> Screen[Any]:
    from labeler.tui.triage import TriageScreen  # loads the metrics: only when first opened

    assert world.runs_dir is not None
    texts = world.texts
    if texts is None and world.store is not None:
        texts = {q.id: q.text for q in world.store.queries()}
    store = world.store
    hidden = None if store is None else lambda: world.sight.hidden(store)
    return TriageScreen(world.runs_dir, world.corpus, run_id=world.run_id, texts=texts,
                        label_set_hash=store_label_set_hash(world), diff=world.diff,
                        hidden=hidden)  # fmt: skip


def store_label_set_hash(world: World) -> str | None:
    """The label set `eval` would measure from the store now, to tell a run whose labels
    moved since (§9); None without a store."""
    from labeler.core.labels import labelset

    if world.store is None:
        return None
    queries, _ = world.store.decided_queries()
    return str(labelset.to_json(queries, world.corpus)["label_set_hash"])


def agreement_missing(world: World) -> str | None:
    if world.store is None:
        return no_store(world)
    from labeler.core.agreement import NO_DOUBLE

    if not world.store.double_annotated():
        return NO_DOUBLE
    return world.store.blind_closed() or world.sight.agreement_closed(world.store)


def build_agreement(world: World) -> Screen[Any]:
    assert world.store is not None
    from labeler.tui.agreement.screen import AgreementScreen

    return AgreementScreen(world.store, world.corpus, world.annotator, member=world.member,
                           sight=world.sight)  # fmt: skip


def build_stats(world: World) -> Screen[Any]:
    assert world.store is not None
    from labeler.tui.screens.stats import StatsScreen

    return StatsScreen(world.store)


MODES: tuple[Mode, ...] = (
    Mode("label", "ctrl+l", "Label", "Queries and their evidence spans", build_label,
         label_missing, label_keys),
    Mode("review", "ctrl+r", "Review", "Decide where stale spans went", build_review,
         no_store, review_keys),
    Mode("triage", "ctrl+g", "Triage", "Gained and lost queries of a run", build_triage,
         triage_missing, triage_keys, "labeler.tui.triage.screen"),
    Mode("agreement", "ctrl+o", "Agreement",
         "Adjudicate double-annotated queries, least agreement first", build_agreement,
         agreement_missing, agreement_keys),
    Mode("stats", "ctrl+t", "Stats", "Queries per status, pattern, slice and annotator",
         build_stats, no_store, stats_keys),
)  # fmt: skip
"""Every screen of the app, in palette order."""

BY_NAME: dict[str, Mode] = {m.name: m for m in MODES}
"""The same entries by name."""
