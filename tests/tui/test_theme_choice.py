"""A theme chosen from the palette recolours the spans at once and is kept after restart."""

from __future__ import annotations

from pathlib import Path

from labeler.core.corpus import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.launch import starting_theme
from labeler.tui.prefs import saved_theme
from tests.tui.conftest import QUIET


def span_background(app: SpanlabApp) -> str:
    """The background of "Shipping is free…", q-0002's span, as the view paints it."""
    screen = app.screen
    assert isinstance(screen, LabelScreen)
    for y in range(screen.view.size.height):
        for segment in screen.view.render_line(y):
            if "hipping" in segment.text and segment.style and segment.style.bgcolor:
                triplet = segment.style.bgcolor.triplet
                assert triplet is not None
                return triplet.hex
    raise AssertionError("the span is not on screen")


async def test_the_palette_theme_recolours_spans_and_is_remembered(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    prefs = tmp_path / "config" / "app.json"
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET, prefs=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down")  # q-0002: its span is the current query's
        await pilot.pause()
        assert span_background(app) == "#174fa5"
        await pilot.press("ctrl+p", *"theme", "enter")
        await pilot.pause()
        await pilot.press(*"spanlab-light", "enter")
        await pilot.pause()
        assert app.theme == "spanlab-light"
        assert span_background(app) == "#a0d1fd"
    assert saved_theme(prefs) == "spanlab-light"
    assert starting_theme(None, prefs) == "spanlab-light"
    assert starting_theme("high-contrast", prefs) == "high-contrast"


def test_an_unreadable_or_unknown_saved_theme_is_ignored(tmp_path: Path) -> None:
    prefs = tmp_path / "app.json"
    prefs.write_text("{not json", encoding="utf-8")
    assert starting_theme(None, prefs) is None
    prefs.write_text('{"theme": "plaid"}', encoding="utf-8")
    assert starting_theme(None, prefs) is None
