"""The app never draws outside text raw (§13, issue 20): a store holding what readers now
refuse (written into its tables directly, as a store from before the rule would hold it)
and a document full of escape sequences are shown with no ESC, C1 or bidi character in
anything the app renders, on every screen that shows them.

What the app renders is read back from `export_screenshot()` (every cell of the screen as
text) and from the widgets' own rendered lines.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.display import BIDI
from labeler.core.store import Store
from labeler.core.values import Span, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from tests.tui.conftest import QUIET

HOSTILE = {
    "osc52": "\x1b]52;c;UFdORUQtQ0xJUEJPQVJE\x1b\\",
    "title": "\x1b]0;PWNED-TITLE\x07",
    "clear": "\x1b[2J",
    "unterminated": "\x1b]0;swallow",
    "c1": "\x9b2J",
    "bidi": "\u202egnp.exe\u202c \u2066x\u2069 \u200f",
}
"""Each sequence issue 20 met, by name."""
ALL = " ".join(HOSTILE.values())
DOC = f"Plain start. {ALL} Refunds take five days.\nSecond line {HOSTILE['osc52']} end.\n"
RAW = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")
"""What must never reach the terminal."""


@pytest.fixture
def corpus() -> Corpus:
    return Corpus.from_texts({"evil.md": DOC})


@pytest.fixture
def store(tmp_path: Path, corpus: Corpus) -> Iterator[Store]:
    s = Store.open(tmp_path / "labels.db")
    s.bind(corpus.doc_hashes)
    q = s.add_query("placeholder question", annotator="ann")
    start = DOC.index("Refunds")
    s.add_span(q.id, Span.from_text(DOC, "evil.md", 0, start + 7), DOC, annotator="ann")
    s.add_query("a second, plain question", annotator="ann")
    with s.conn:  # what no reader lets in now, stored as an older store may hold it
        s.conn.execute(
            "UPDATE queries SET text = ?, notes = ?, annotator = ?, slices = ?, status = ? "
            "WHERE id = ?",
            (f"Why {ALL}?", f"note {ALL}", f"mallory{HOSTILE['title']}",
             json.dumps(["a/b", "s\u202e"]), Status.LABELLED.value, q.id),
        )  # fmt: skip
        s.conn.execute("UPDATE spans SET annotator = ?", (f"eve{HOSTILE['c1']}",))
    yield s
    s.close()


def raw_in(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in RAW.findall(text)})


def rendered(app: SpanlabApp) -> str:
    """Every line every visible widget renders, as text."""
    lines = []
    for widget in app.screen.query("*"):
        if widget.display and widget.size.area:
            for y in range(widget.size.height):
                strip = widget.render_line(y)
                lines.append("".join(seg.text for seg in strip))
    return "\n".join(lines)


async def test_the_label_screen_shows_hostile_text_escaped(store: Store, corpus: Corpus) -> None:
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        assert screen.state.current == "q-0001"
        assert screen.view.doc_id == "evil.md"
        app.notify(f"server said {ALL}", title=f"t{HOSTILE['title']}")
        await pilot.pause()
        svg = app.export_screenshot()
        assert raw_in(svg) == []
        assert raw_in(rendered(app)) == []
        assert "\\x1b]52;c;" in svg  # the list row and panel show the question, escaped
        assert "PWNED-TITLE" in svg  # visible as text, not acted on
        plain = html.unescape(svg).replace("\xa0", " ")
        assert "\\x1b]0;PWNED-TITLE\\x07" in plain  # the panel: the stored row loads
        assert "a/b, s\\u202e" in plain  # slices stored under the old rule, escaped
        await pilot.press("v")  # colour by annotator: names in the legend
        await pilot.pause()
        assert raw_in(app.export_screenshot()) == []


async def test_the_document_view_keeps_offsets_across_placeholders(
    store: Store, corpus: Corpus
) -> None:
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        # Each control still takes one offset: walking to "Refunds" by characters lands on it.
        start = DOC.index("Refunds")
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        await pilot.press("enter")  # into the document
        screen.view.go_to(start)
        await pilot.press("shift+right", "shift+right", "shift+right")
        assert screen.view.selection == (start, start + 3)
        assert raw_in(app.export_screenshot()) == []


@pytest.mark.parametrize("mode", ["stats", "review", "agreement"])
async def test_other_screens_show_hostile_names_escaped(
    mode: str, store: Store, corpus: Corpus
) -> None:
    app = SpanlabApp(store, corpus, annotator="ann", screen=mode, settings=QUIET)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert raw_in(app.export_screenshot()) == []
        assert raw_in(rendered(app)) == []
