"""Snapshots of the app-wide screens (stats, keys) and of each theme at 80×24, each saying
what the picture must show.

Deterministic by settings: the app is built with `cursor_blink=False` and an in-test
store, so ids and text never change; no screen shows a clock or a timestamp.
Update with: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from collections.abc import Callable

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from tests.tui.conftest import QUIET

SnapCompare = Callable[..., bool]


def test_stats_screen(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """Stats: "3 queries · 1 spans · 1 abstain · 0 with several spans"; tables by status
    (draft 2, labelled 1), work done (annotator, made, spans, rev., adj., stale: ann 2 made,
    bob 1 made and 1 span), pattern (other 2, control 1) and slice (refunds 1, shipping 1),
    each with shares and bars."""
    assert snap_compare(app, press=["ctrl+t"], terminal_size=(80, 24))


def test_help_screen(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """The keys dialog: under its title, which part has the focus ("Focus: the query list:
    arrows, home/end, pgup/pgdn move in it. n, N, shift+ and ctrl+arrows act in the
    document; a, x, [ ] { }, r, w, s need it (tab moves there)."); then a "Label screen"
    section (ctrl+f Search, e Edit, S Status, ctrl+z Undo, …), generated from the bindings;
    the document's w and s rows name the double and triple click."""
    assert snap_compare(app, press=["question_mark"], terminal_size=(80, 24))


def test_light_theme(snap_compare: SnapCompare, store: Store, corpus: Corpus) -> None:
    """The start screen in spanlab-light: dark text on a light surface, q-0002's span on
    a pale background, the highlighted query in the light primary colour."""
    app = SpanlabApp(store, corpus, annotator="ann", theme="light", settings=QUIET)
    assert snap_compare(app, press=["enter", "s", "a"], terminal_size=(80, 24))


def test_high_contrast_theme(snap_compare: SnapCompare, store: Store, corpus: Corpus) -> None:
    """The start screen in spanlab-high-contrast: white on black, the new span on pure
    blue, yellow accents; only ANSI colours, so a 16-colour terminal shows the same."""
    app = SpanlabApp(store, corpus, annotator="ann", theme="high-contrast", settings=QUIET)
    assert snap_compare(app, press=["enter", "s", "a"], terminal_size=(80, 24))
