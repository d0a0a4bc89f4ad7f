"""How the CLI starts the app: it hands over the store, corpus and runs folder it opened,
and names the screen to open on. A bad theme or run id is refused before any terminal
is touched."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.source import CorpusSource
from labeler.core.store import Store
from labeler.core.team.roles import Member
from labeler.tui.app import SpanlabApp
from labeler.tui.modes import BY_NAME
from labeler.tui.prefs import prefs_path, saved_theme
from labeler.tui.settings import Settings
from labeler.tui.themes import load_themes

if TYPE_CHECKING:
    from evaluator.runs.diff import RunDiff
    from labeler.core.project.cache_place import CacheWhere


def run_app(store: Store | None, corpus: Corpus, *, annotator: str, screen: str = "label",
            theme: str | None = None, runs_dir: Path | None = None,
            run_id: str | None = None, trim_spans: bool = True,
            source: CorpusSource | None = None, member: Member | None = None,
            embedding_cache: CacheWhere = None, candidates: Path | None = None,
            diff: RunDiff | None = None, blind: bool = False) -> None:  # fmt: skip
    """Run the app on `screen` until the person quits.

    An unknown theme raises ConfigError; on triage, no runs or an unknown run id raise
    StoreError; with `diff`, triage opens on that run against run (§16). `trim_spans` is
    spanlab.toml's: added spans leave out edge whitespace.
    With `source`, the app reads the corpus again when its folder changes. Suggestions
    keep their sentence vectors in `embedding_cache`, shared by every app on the project;
    transitions to label are ranked by the cuts of `candidates`.
    `blind` is the project's setting: every screen keeps undecided versions of others from
    a member who is not a lead (§20).
    """
    if diff is not None:  # already read and compared: the run id is B's
        run_id = diff.b.id
    elif screen == "triage":
        from evaluator.runs.index import find_run  # run.json's model: triage only

        assert runs_dir is not None
        run_id = find_run(runs_dir, run_id).id
    if store is not None and member is not None:  # the store asks it of acts on others' queries
        store.member = member
    if screen != "label":  # imported while the terminal still says it is loading
        BY_NAME[screen].groups()  # (the screen's package: triage's metrics take seconds)
    prefs = prefs_path()
    app = SpanlabApp(store, corpus, annotator=annotator, screen=screen,
                     theme=starting_theme(theme, prefs), runs_dir=runs_dir, run_id=run_id,
                     prefs=prefs, trim_spans=trim_spans, source=source,
                     member=member, diff=diff, blind=blind,
                     settings=Settings(embedding_cache=embedding_cache,
                                       candidates=candidates))  # fmt: skip
    app.run()


def starting_theme(asked: str | None, prefs: Path) -> str | None:
    """`--theme` when given, else the theme last chosen, if it still exists."""
    if asked is not None:
        return asked
    saved = saved_theme(prefs)
    return saved if saved in load_themes() else None
