"""A theme chosen from the palette recolours the spans at once and is kept after restart."""

from __future__ import annotations

from pathlib import Path

from rich.color import ColorSystem
from rich.style import Style

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.launch import starting_theme
from labeler.tui.prefs import saved_theme
from tests.tui.conftest import QUIET
from tests.tui.test_themes import contrast


def span_style(app: SpanlabApp) -> Style:
    """The style of "Shipping is free…", q-0002's span, as the view paints it."""
    screen = app.screen
    assert isinstance(screen, LabelScreen)
    for y in range(screen.view.size.height):
        for segment in screen.view.render_line(y):
            if "hipping" in segment.text and segment.style and segment.style.bgcolor:
                return segment.style
    raise AssertionError("the span is not on screen")


def span_background(app: SpanlabApp) -> str:
    triplet = span_style(app).bgcolor.triplet  # type: ignore[union-attr]
    assert triplet is not None
    return triplet.hex


def in_256_colours(style: Style) -> tuple[int, int, float]:
    """Foreground and background as a 256-colour terminal shows them, and their contrast."""
    assert style.color is not None and style.bgcolor is not None
    fg, bg = (c.downgrade(ColorSystem.EIGHT_BIT) for c in (style.color, style.bgcolor))
    assert fg.number is not None and bg.number is not None
    return fg.number, bg.number, contrast(fg.get_truecolor().hex, bg.get_truecolor().hex)


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


async def test_spans_stay_readable_in_256_colours_after_a_palette_switch(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    """The trial's defect: dark-theme span background (24) under light-theme text (234)."""
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET, prefs=tmp_path / "a.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down")
        await pilot.pause()
        dark = in_256_colours(span_style(app))
        for name in ("spanlab-light", "spanlab-high-contrast", "spanlab-dark"):
            await pilot.press("ctrl+p", *"theme", "enter")
            await pilot.pause()
            await pilot.press(*name, "enter")
            await pilot.pause()
            assert app.theme == name
            fg, bg, ratio = in_256_colours(span_style(app))
            assert ratio >= 4.5, (name, fg, bg, ratio)
            if name == "spanlab-light":
                assert bg != dark[1], "the light theme kept the dark span background"
        assert in_256_colours(span_style(app)) == dark


def test_an_unreadable_or_unknown_saved_theme_is_ignored(tmp_path: Path) -> None:
    prefs = tmp_path / "app.json"
    prefs.write_text("{not json", encoding="utf-8")
    assert starting_theme(None, prefs) is None
    prefs.write_text('{"theme": "plaid"}', encoding="utf-8")
    assert starting_theme(None, prefs) is None
