"""The one spanlab app: it is handed its world (store, corpus, annotator, runs folder) and
shows the screens of `modes.MODES` — label, review, triage, agreement, stats — one Textual
mode each.

It owns what is app-wide: themes from `themes/`, switching between screens (keys and the
palette), the poll that notices other annotators' commits, the help, and the palette.
Everything about one screen lives in that screen's package.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme

from labeler.core.anchoring import binding
from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.source import CorpusSource
from labeler.core.errors import ConfigError, SpanlabError, StoreError
from labeler.core.store import Store
from labeler.core.team.roles import Member
from labeler.core.team.visibility import Sight
from labeler.tui.base import ThemedApp
from labeler.tui.corpus_watch import CorpusWatch
from labeler.tui.label import LABEL_STYLESHEET, Editor, LabelScreen
from labeler.tui.messages import AgreementRequested, CorpusChanged, LabelsChanged
from labeler.tui.modes import BY_NAME, MODES, KeyGroups
from labeler.tui.prefs import save_theme
from labeler.tui.screens.help import HelpScreen, focus_line
from labeler.tui.settings import Settings
from labeler.tui.triage import LabelRequested

if TYPE_CHECKING:
    from evaluator.runs.diff import RunDiff  # run.json's model: triage of a diff only


@runtime_checkable
class HasCommands(Protocol):
    """A screen that offers its own palette entries: (title, help, callback)."""

    def palette_commands(self) -> Iterable[SystemCommand]: ...


@runtime_checkable
class SaysFocus(Protocol):
    """A screen that names its focused part for the help (`Focus: the query list. …`)."""

    def focus_note(self) -> str: ...


class SpanlabApp(ThemedApp):
    """Label, review, triage, agreement and stats in one app; `screen` names the one it
    opens on."""

    TITLE = "spanlab"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("question_mark", "help", "Keys"),
        *(Binding(m.key, f"go('{m.name}')", m.title, show=False) for m in MODES),
        Binding("ctrl+b", "go('triage')", "", show=False),  # the old triage app's key
    ]

    def __init__(self, store: Store | None, corpus: Corpus, *, annotator: str,
                 screen: str = "label", runs_dir: Path | None = None,
                 run_id: str | None = None, texts: Mapping[str, str] | None = None,
                 theme: str | None = None, settings: Settings | None = None,
                 prefs: Path | None = None, trim_spans: bool = True,
                 source: CorpusSource | None = None,
                 member: Member | None = None, diff: RunDiff | None = None,
                 blind: bool = False) -> None:  # fmt: skip
        if screen not in BY_NAME:
            raise ConfigError(f"unknown screen {screen!r}", hint="one of: " + ", ".join(BY_NAME))
        self.start = screen
        """The screen the app opens on."""
        # Textual builds its first mode while composing: open on ours directly, not on a
        # blank default screen switched away from (one style pass fewer before the list).
        vars(self)["DEFAULT_MODE"] = screen
        super().__init__(theme=theme, stylesheets=[LABEL_STYLESHEET])
        self.title = window_title(screen)
        self.store, self.corpus, self.annotator = store, corpus, annotator
        self.member = member or Member(annotator, annotator)
        """Who is at the keyboard and what `[team]` lets them decide (§15)."""
        self.sight = Sight(self.member, blind)
        """What they may see of others' versions: the project's `blind` rule (§20)."""
        self.runs_dir, self.run_id, self.texts = runs_dir, run_id, texts
        self.diff = diff
        """Run against run for triage (§16), or None: triage opens `run_id`."""
        self._editor = (
            Editor(store, corpus, annotator, trim=trim_spans) if store is not None else None
        )
        self.settings = settings or Settings()
        """Blinking and polling (tests turn them down)."""
        self.prefs = prefs
        """Where the chosen theme is remembered (None: nowhere)."""
        self._seen_version = store.data_version() if store is not None else 0
        self._built: list[Screen[Any]] = []
        self._opened: set[str] = set()
        self._previous = screen
        self._watch = CorpusWatch(source) if source is not None else None
        """The corpus folder, read again when it changes (None: not watched, as in tests)."""
        for mode in MODES:
            self.add_mode(mode.name, self._builder(mode.name))

    @property
    def editor(self) -> Editor:
        """Every label edit goes through it, so every edit can be undone across visits."""
        if self._editor is None:
            raise StoreError("no label store here")
        return self._editor

    @property
    def mode_name(self) -> str:
        """The screen the person is on: `label`, `review`, `triage`, `agreement` or `stats`."""
        return self.current_mode

    def _builder(self, name: str) -> Callable[[], Screen[Any]]:
        return lambda: self._build(name)

    def _build(self, name: str) -> Screen[Any]:
        built = BY_NAME[name].build(self)
        self._built.append(built)
        self._opened.add(name)
        return built

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        if self.store is not None:
            self.set_interval(self.settings.poll_interval, self.poll)
            if why := self.store.cannot_write():
                self.notify(why, title=READ_ONLY, severity="warning", timeout=30, markup=False)
        if self._watch is not None:
            self.set_interval(self.settings.corpus_interval, self._poll_corpus)

    def _remember_theme(self, theme: Theme) -> None:
        if self.prefs is not None:
            save_theme(self.prefs, theme.name)

    def poll(self) -> None:
        """Tell every screen when another connection has committed to the store."""
        assert self.store is not None
        version = self.store.data_version()
        if version != self._seen_version:
            self._seen_version = version
            self._unblock()  # someone may have finished the review elsewhere
            for screen in {*self._built, *self.screen_stack}:
                screen.post_message(LabelsChanged(version))

    def _poll_corpus(self) -> None:
        self.run_worker(self._look_at_corpus, thread=True, exclusive=True, group="corpus",
                        exit_on_error=False)  # fmt: skip

    def _look_at_corpus(self) -> None:
        """In a thread: compare the folder's signature; read it again on the app's thread."""
        assert self._watch is not None
        if self._watch.changed():
            self.call_from_thread(self.reread_corpus)

    def reread_corpus(self) -> None:
        """Read the corpus again, sync the store to it and tell every screen."""
        assert self._watch is not None
        try:
            corpus = self._watch.read()
        except SpanlabError as exc:
            self.notify(str(exc), title="Corpus not read again", severity="error", timeout=10)
            return
        change = binding.diff_documents(self.corpus.doc_hashes, corpus.doc_hashes)
        self.corpus = corpus
        waiting = binding.sync(self.store, corpus).waiting if self.store is not None else 0
        if self._editor is not None:
            self._editor.use(corpus, blocked=waiting_reason(waiting))
        names = (*change.changed, *change.added, *change.removed)
        for screen in {*self._built, *self.screen_stack}:
            screen.post_message(CorpusChanged(corpus, names, waiting))
        message, title, severity = corpus_note(names, waiting)
        self.notify(message, title=title, severity=severity, timeout=10 if waiting else 5)

    def action_switch(self, name: str) -> bool:
        """Go to the named screen, as the person left it; say why when it cannot open."""
        if name == self.mode_name:
            return True
        if self._watch is not None and name in ("label", "review") and self._watch.changed():
            self.reread_corpus()  # what review lists must be what the folder holds now
        reason = BY_NAME[name].missing(self)
        if reason is not None:
            self.notify(reason, title=BY_NAME[name].title, severity="warning")
            return False
        if name == "label":
            self._unblock()  # label opens only when nothing waits for review
        self._previous = self.mode_name
        self._go(name)
        return True

    def action_go(self, name: str) -> None:
        """A screen's key: switch to it, or say it is the one shown (every key answers). A
        screen whose package is not imported yet says it is loading while a thread imports
        it (triage's metrics: seconds), then opens."""
        if name == self.mode_name:
            self.notify(f"This is the {BY_NAME[name].title} screen.", timeout=2)
            return
        package = BY_NAME[name].package
        if not package or package in sys.modules:
            self.action_switch(name)
            return
        self.notify(loading_line(BY_NAME[name].title), timeout=2)
        self.run_worker(partial(self._import_then_go, name, package), thread=True,
                        group="loading", exit_on_error=False)  # fmt: skip

    def _import_then_go(self, name: str, package: str) -> None:
        """In a thread: import the screen's package, then switch on the app's thread."""
        importlib.import_module(package)
        self.call_from_thread(self.action_switch, name)

    def _unblock(self) -> None:
        """Span edits may go on once no span waits for review any more."""
        editor, store = self._editor, self.store
        if editor is None or editor.blocked is None or store is None:
            return
        if not binding.sync(store, self.corpus).waiting:
            editor.blocked = None

    def _go(self, name: str) -> None:
        self.switch_mode(name)
        self.title = window_title(name)

    def action_go_back(self) -> None:
        """Back to the screen before this one (stats' escape)."""
        self.action_switch(self._previous if self._previous != self.mode_name else self.start)

    def on_label_requested(self, message: LabelRequested) -> None:
        if self.action_switch("label"):
            screen = self.screen_stack[0]
            assert isinstance(screen, LabelScreen)
            screen.show_query(message.query)

    def on_agreement_requested(self, message: AgreementRequested) -> None:
        store, query = self.store, message.query
        closed = store.blind_refusal(query) if store and query else None
        closed = f"{closed} (the project's `blind = true`)" if closed else None
        if closed is None and store is not None and query:
            closed = self.sight.refusal(store, query)
        if closed is not None:
            self.notify(closed, title="Agreement", severity="warning")
            return
        if self.action_switch("agreement"):
            screen = self.screen_stack[0]
            from labeler.tui.agreement.screen import AgreementScreen

            assert isinstance(screen, AgreementScreen)
            screen.show_query(message.query)

    def action_help(self) -> None:
        screen = self.screen
        note = screen.focus_note() if isinstance(screen, SaysFocus) else focus_line(self.focused)
        self.push_screen(HelpScreen(self.key_groups(), note))

    def key_groups(self) -> KeyGroups:
        """This screen's keys first, then those of the other screens opened, then the app's."""
        here = BY_NAME[self.mode_name].groups()
        if self.screen is not self.screen_stack[0]:  # e.g. the query screen over triage
            top = type(self.screen).BINDINGS
            here = sorted(here, key=lambda g: g[1] is not top)
        others = [g for m in MODES if m.name in self._opened - {self.mode_name} for g in m.groups()]
        return [*here, *others, ("Anywhere", self.BINDINGS)]

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        ours = {"Keys", *(m.title for m in MODES)}
        yield from (c for c in super().get_system_commands(screen) if c.title not in ours)
        yield SystemCommand("Keys", "Every key of this screen and the app", self.action_help)
        for m in MODES:
            if m.name != self.mode_name:
                yield SystemCommand(m.title, m.help, lambda n=m.name: self.action_switch(n))
        if isinstance(screen, HasCommands):
            yield from screen.palette_commands()


def waiting_reason(waiting: int) -> str | None:
    """Why span edits wait while the corpus has stale spans (None: they need not)."""
    return f"{waiting} span(s) wait for review after the corpus changed" if waiting else None


def corpus_note(names: Sequence[str], waiting: int) -> tuple[str, str, SeverityLevel]:
    """The notification for a corpus read again: message, title, severity."""
    said = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    if waiting:
        return f"{said} changed: {waiting} span(s) wait for review (ctrl+r)", "Corpus", "warning"
    return f"{said} changed: read again; every span is still in place", "Corpus", "information"


READ_ONLY = "Read-only store: edits will not be saved"
"""The notice at start when the store refuses edits (§15)."""


def loading_line(title: str) -> str:
    """What a screen that waits says meanwhile."""
    return f"Loading {title.lower()} …"


def window_title(screen: str) -> str:
    """`spanlab` on the label screen, `spanlab review` and so on elsewhere."""
    return "spanlab" if screen == "label" else f"spanlab {screen}"
