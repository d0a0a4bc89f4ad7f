"""Suggested evidence on the label screen: `E` lists sentences for the current query, `a`
accepts one through the editor (an ordinary span, undone by ctrl+z), enter only shows it;
without an embedder it ranks lexically and says so; the key is in `?` and the palette."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rich.table import Table
from textual.widgets import Label, OptionList, Static

from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.suggest import SentenceIndex
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label.screen import LabelScreen
from labeler.tui.label.suggest_screen import MARK, SuggestScreen, preview, suggestion_prompt
from labeler.tui.screens.help import HelpScreen
from labeler.tui.widgets.document_view.textnav import snap_sentence
from tests.tui.conftest import BILLING, GIFTS, QUIET, record_notes

LEXICAL = replace(QUIET, suggest_embedding=None)
"""No model: the Pilot tests rank lexically (the fusion has tests of its own)."""


@pytest.fixture
def lexical_app(store: Store, corpus: Corpus) -> SpanlabApp:
    return SpanlabApp(store, corpus, annotator="ann", settings=LEXICAL)


async def test_e_suggests_then_a_accepts_a_span_that_undo_removes(
    lexical_app: SpanlabApp, store: Store
) -> None:
    app = lexical_app
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("E")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = app.screen
        assert isinstance(shown, SuggestScreen)
        best = shown.suggestions[0]
        assert (best.doc, best.text) == ("billing.md", "Refunds take five days.")
        assert [BILLING[a:b] for a, b in best.marks] == ["Refunds", "take"]
        assert shown.note == "lexical only (no embedding configured)"
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen)
        (span,) = store.query("q-0001").evidence
        assert (span.doc, span.start, span.end, span.annotator) == ("billing.md", 0, 23, "ann")
        assert span.quote == BILLING[span.start : span.end] == best.text
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert store.query("q-0001").evidence == ()


async def test_enter_shows_the_suggestion_without_adding_it(
    lexical_app: SpanlabApp, store: Store
) -> None:
    app = lexical_app
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("J", "E")  # q-0002 "Is shipping free?": billing.md 60–91
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        assert (screen.view.doc_id, screen.view.selection) == ("billing.md", (60, 91))
        assert screen.view.has_focus
        assert len(store.query("q-0002").evidence) == 1  # bob's, as before


async def test_an_embedder_that_cannot_load_leaves_lexical_suggestions(
    store: Store, corpus: Corpus
) -> None:
    app = SpanlabApp(store, corpus, annotator="ann",
                     settings=replace(QUIET, suggest_embedding="no-such-model"))  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("E")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = app.screen
        assert isinstance(shown, SuggestScreen)
        assert shown.note == (
            "lexical only (embedder unavailable: unknown embedding model 'no-such-model')"
        )
        assert shown.suggestions[0].text == "Refunds take five days."
        note = shown.query_one("#note", Label).content
        assert "lexical only" in str(note)


async def test_a_second_press_reuses_the_index(lexical_app: SpanlabApp) -> None:
    app = lexical_app
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("E")
        await app.workers.wait_for_complete()
        await pilot.press("escape", "E")
        await app.workers.wait_for_complete()
        await pilot.pause()
        label = app.screen_stack[0]
        assert isinstance(label, LabelScreen)
        cache = label.suggestions.cache
        built = cache.ready(label.editor.corpus, None)
        assert built is not None and built.index is cache.index(label.editor.corpus)
        assert isinstance(app.screen, SuggestScreen) and app.screen.suggestions


async def test_without_a_query_e_says_what_to_do(
    tmp_path: object, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    empty = Store.open(tmp_path / "empty.db")
    empty.bind(corpus.doc_hashes)
    app = SpanlabApp(empty, corpus, annotator="ann", settings=LEXICAL)
    notes = record_notes(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("E")
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen)
    assert notes == ["Pick or create a query first (ctrl+n)."]
    empty.close()


async def test_suggest_is_in_the_help_and_the_palette(lexical_app: SpanlabApp) -> None:
    app = lexical_app
    async with app.run_test(size=(80, 24)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        table = help_screen.query(Static).last().content
        assert isinstance(table, Table)
        keys, does = ([str(c) for c in col.cells] for col in table.columns)
    assert "Suggest evidence" in titles
    assert keys[does.index("Suggest evidence")] == "E"


def test_suggested_sentences_are_the_sentences_s_snaps_to() -> None:
    """The suggestions' splitter (labeler.core) and the view's `s` snap agree on these
    texts, so an accepted suggestion is the span `s` then `a` would have made."""
    for text in (BILLING, GIFTS):
        index = SentenceIndex(Corpus.from_texts({"d.md": text}))
        for p in index.passages:
            assert snap_sentence(text, p.start, p.start) == (p.start, p.end)


def test_the_list_line_and_preview_mark_the_query_words() -> None:
    index = SentenceIndex(Corpus.from_texts({"billing.md": BILLING}))
    (best,) = index.suggest("How long do refunds take?", 5)
    line = suggestion_prompt(1, best)
    assert line.plain == f" 1. {best.score:>7.4f} billing.md 0–23 Refunds take five days."
    styled = [line.plain[s.start : s.end] for s in line.spans if s.style == MARK]
    assert styled == ["Refunds", "take"]
    shown = preview(best)
    assert shown.plain.startswith("billing.md 0–23 · score ") and "bm25 #1" in shown.plain
    assert [shown.plain[s.start : s.end] for s in shown.spans if s.style == MARK] == styled


async def test_a_better_ranking_arriving_keeps_the_highlighted_sentence(
    lexical_app: SpanlabApp,
) -> None:
    """The tmux run: the fused list replaced the lexical one under the highlight, so the
    next key acted on another sentence than the one being read."""
    app = lexical_app
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("E")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = app.screen
        assert isinstance(shown, SuggestScreen)
        first = shown.suggestions[0]
        other = replace(first, doc="gifts.txt", start=25, end=70, text=GIFTS[25:70], marks=())
        shown.show([first, other], "lexical; embedding the sentences…")  # reading the first
        shown.show([other, first], "fused")  # the model ranks the other one first
        await pilot.pause()
        listing = shown.query_one("#suggestions", OptionList)
        assert listing.highlighted == 1 and shown.suggestions[1] == first
        shown.show([other], "fused again")  # the one read is gone: back to the top
        await pilot.pause()
        assert listing.highlighted == 0
        await pilot.press("a")
        await pilot.pause()
        assert [s.doc for s in app.editor.store.query("q-0001").evidence] == ["gifts.txt"]
