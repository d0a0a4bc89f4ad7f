"""Snapshots of every label screen state at 80×24, each saying what the picture must show.

Deterministic by settings: the app is built with `cursor_blink=False` and an in-test
store, so ids and text never change; no screen shows a clock or a timestamp.
Update with: pytest tests/tui/label/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span
from labeler.tui.app import SpanlabApp
from labeler.tui.label.screen import LabelScreen
from tests.tui.conftest import BILLING, QUIET
from tests.tui.test_app import until

SnapCompare = Callable[..., bool]


def test_label_screen_on_start(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """Three queries on the left, q-0001 highlighted; its panel says draft, 0 spans,
    pattern other, slice refunds; the cursor bar reads billing.md · 0/114; q-0002's span
    ("Shipping is free over 50 euros.") is drawn faintly (underlined); the cursor sits on
    the R of "Refunds"; the footer lists the label keys."""
    assert snap_compare(app, terminal_size=(80, 24))


def test_current_span_and_selection(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """ "Refunds take five days." is strongly highlighted (bold, $span-current) as q-0001's
    new span; "Cards are credited" is selected ($selection) with the cursor after it; the
    panel says 1 span; the cursor bar shows the selection 24–42 (18)."""
    press = ["enter", "s", "a", "right", *["ctrl+shift+right"] * 3]
    assert snap_compare(app, press=press, terminal_size=(80, 24))


def test_two_annotators_side_by_side(
    snap_compare: SnapCompare, app: SpanlabApp, tmp_path: Path
) -> None:
    """Per-annotator view of q-0001: ann's span "Refunds take five days." in the A style
    (bold on $annotator-a), bob's longer span up to "two days." in the B style (bold
    underlined $annotator-b text) and both over the shared words; the panel reads
    2 spans (ann 1, bob 1); the cursor bar ends with the legend "A ann · B bob"."""

    async def bob_labels(pilot: Pilot[None]) -> None:
        await pilot.press("enter", "s", "a")
        other = Store.open(tmp_path / "labels.db")
        other.add_span(
            "q-0001", Span.from_text(BILLING, "billing.md", 0, 59), BILLING, annotator="bob"
        )
        other.close()
        screen = pilot.app.screen
        assert isinstance(screen, LabelScreen)
        await until(pilot, lambda: screen.state.queries["q-0001"].spans == 2)
        await pilot.press("v")

    assert snap_compare(app, run_before=bob_labels, terminal_size=(80, 24))


def test_query_form(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """The edit form for q-0001 over the label screen: text "How long do refunds take?",
    pattern other, slices refunds, status draft, abstain unchecked, empty notes, and the
    hint line with enter/ctrl+s, esc and tab."""
    assert snap_compare(app, press=["e"], terminal_size=(80, 24))


def test_corpus_search_results(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """Corpus search (it opens empty) with q-0001's text typed; the first hit, highlighted, is
    billing.md @0 at 61% ("Refunds take five days. Cards are credited within two days.":
    "long" is found nowhere), then gifts.txt @0 at 22%, each passage on one line."""

    async def search(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+f", *"How long do refunds take?", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, run_before=search, terminal_size=(80, 24))


def test_document_picker(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """The document picker lists billing.md (0 of this query's spans / 1 in all) and
    gifts.txt (0/0), with the filter input on top."""
    assert snap_compare(app, press=["o"], terminal_size=(80, 24))


def test_filter_applied(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """Filter "s:lab" typed: the list title reads 2/3 queries; q-0001 (current) and
    q-0002 (half-filled glyph, labelled) remain; q-0003 is gone."""
    assert snap_compare(app, press=["f", *"s:lab"], terminal_size=(80, 24))


def test_delete_confirmation(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """A modal asks "Delete q-0001 and its 0 spans? (ctrl+z undoes it)" with y/n."""
    assert snap_compare(app, press=["D"], terminal_size=(80, 24))


def test_wide_characters_and_tabs_stay_aligned(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """A document with CJK, a ZWJ family emoji, a combining accent and a tab: rows wrap
    by cells, not code points; the tab is four spaces; the selection covers exactly
    "日本語" (offsets 6–9 shown in the cursor bar)."""
    text = "Tokyo 日本語 office\tcafe\u0301 👨‍👩‍👧 family plan " * 3
    corpus = Corpus.from_texts({"wide.md": text})
    store = Store.open(tmp_path / "wide.db")
    store.add_query("Where is the office?", annotator="ann")
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    press = ["enter", *["right"] * 6, *["shift+right"] * 3]
    assert snap_compare(app, press=press, terminal_size=(80, 24))


def test_long_questions_at_80_columns(
    snap_compare: SnapCompare, store: Store, corpus: Corpus
) -> None:
    """Six questions that all start "How long does" beside three short ones: each row is
    the status glyph, the id's number (0004 … 0009), the span count and at least 21
    characters of its question, so "How long does Tallis…", "How long does my pas…" and
    "How long does the ba…" read apart at 80×24; the panel still shows the whole id q-0001.
    """
    for rest in ("Tallis wait before the sixth webhook delivery attempt?",
                 "my password have to be?", "the battery in a Room Sensor last?",
                 "a refund take to reach my card?", "shipping take to Norway?",
                 "an invoice stay open?"):  # fmt: skip
        store.add_query(f"How long does {rest}", annotator="ann")
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    assert snap_compare(app, terminal_size=(80, 24))


UNLINK = "Remove the device from your Tallis account before you send it."
FAQ = f"# Returns: quick answers\n\nDo I unlink first? Yes. {UNLINK}\n"
PROCESS = f"# Returns Process\n\nPack the device in its box.\n\n## Before you pack\n\n{UNLINK}\n"


def test_alternatives_drawn_as_such(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """q-0001 has one fact in two documents (any of 2) and a span of its own. In
    policies/returns-process.md the span of its own, "Pack the device in its box.", is bold
    on $span-current; the copy "Remove the device … send it." is bold on $span-alternative
    (green; the double underline is not drawn in SVG); the cursor sits on the copy and the
    bar reads `span 3/3 any-of 1 · returns-p…ocess.md @68/131`: the path shortened, the
    offset whole; the panel says 3 spans · any of 2."""
    corpus = Corpus.from_texts({"help/returns-faq.md": FAQ, "policies/returns-process.md": PROCESS})
    store = Store.open(tmp_path / "alt.db")
    store.bind(corpus.doc_hashes)
    store.add_query("Do I have to unlink my thermostat before sending it back?", annotator="ann")
    at = FAQ.index(UNLINK)
    fact = Span.from_text(FAQ, "help/returns-faq.md", at, at + len(UNLINK))
    first = store.add_span("q-0001", fact, FAQ, annotator="ann")
    doc, at = "policies/returns-process.md", PROCESS.index(UNLINK)
    copy = Span.from_text(PROCESS, doc, at, at + len(UNLINK))
    store.add_alternative(first.id or 0, copy, PROCESS, annotator="ann")
    own = PROCESS.index("Pack")
    store.add_span("q-0001", Span.from_text(PROCESS, doc, own, own + 27), PROCESS, annotator="ann")
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    assert snap_compare(app, press=["tab", "n", "n"], terminal_size=(80, 24))


def test_facts_dialog(snap_compare: SnapCompare, app: SpanlabApp, store: Store) -> None:
    """The facts dialog over q-0001 at 80×24: its title names the query; the list shows
    "1. five days", "   or 5 days", "2. refund"; under it "new fact:" and the empty line
    with its placeholder; the keys on two whole lines (enter, ↑, a, x; ctrl+s, esc)."""
    store.update_query("q-0001", annotator="ann", facts=(("five days", "5 days"), ("refund",)))
    assert snap_compare(app, press=["F"], terminal_size=(80, 24))
