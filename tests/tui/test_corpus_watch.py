"""The corpus folder edited while the app runs (the trial: review said nothing waited,
the label screen drew the old text, and evidence could be added on text that was gone)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from labeler.core.corpus.source import CorpusSource
from labeler.core.errors import SpanlabError
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.corpus_watch import CorpusWatch
from labeler.tui.label import LabelScreen
from labeler.tui.review import ReviewScreen
from tests.tui.conftest import BILLING, GIFTS, QUIET, record_notes, seed

WATCHING = replace(QUIET, corpus_interval=0.05)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "billing.md").write_text(BILLING, encoding="utf-8")
    (root / "gifts.txt").write_text(GIFTS, encoding="utf-8")
    return root


def watching_app(folder: Path, tmp_path: Path) -> SpanlabApp:
    source = CorpusSource(folder)
    corpus = source.read()
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    seed(store)  # q-0002's span: "Shipping is free over 50 euros." in billing.md
    return SpanlabApp(store, corpus, annotator="carol", settings=WATCHING, source=source)


async def settle(pilot: object, app: SpanlabApp, rounds: int = 20) -> None:
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause(0.05)  # type: ignore[attr-defined]


async def test_an_edit_under_a_span_is_noticed_reviewed_and_blocks_span_edits(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = watching_app(folder, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("down")  # q-0002
        await pilot.pause()
        edited = BILLING.replace("free over 50 euros", "free over 80 euros")
        (folder / "billing.md").write_text(edited, encoding="utf-8")
        await settle(pilot, app)
        assert any("billing.md changed: 1 span(s) wait for review (ctrl+r)" in n for n in notes)
        screen = app.screen
        assert isinstance(screen, LabelScreen) and screen.view.text == edited
        await pilot.press("enter")  # to the document
        screen.view.go_to(0)
        await pilot.press("s", "a")  # "Refunds take five days."
        await pilot.pause()
        assert any("wait for review after the corpus changed" in n for n in notes), notes
        assert app.editor.store.query("q-0002").evidence[0].quote.startswith("Shipping")
        await pilot.press("ctrl+r")
        await pilot.pause()
        review = app.screen
        assert isinstance(review, ReviewScreen)
        assert [item.query_id for item in review.items] == ["q-0002"]
        await settle(pilot, app)  # the candidates, found in a worker
        await pilot.press("enter")  # accept: "Shipping is free over 80 euros."
        await settle(pilot, app)
        assert review.items == []
        await pilot.press("ctrl+l")  # back to label, where span edits go on again
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen) and app.editor.blocked is None
        assert app.editor.store.query("q-0002").evidence[0].quote == (
            "Shipping is free over 80 euros."
        )


async def test_an_edit_away_from_spans_is_read_again_quietly(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = watching_app(folder, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("down")
        await pilot.pause()
        (folder / "gifts.txt").write_text(GIFTS + "Gift cards are free.\n", encoding="utf-8")
        (folder / "new.md").write_text("A new page.\n", encoding="utf-8")
        await settle(pilot, app)
        assert any("gifts.txt, new.md changed: read again" in n for n in notes), notes
        assert "new.md" in app.editor.corpus
        assert app.editor.corpus.text("gifts.txt").endswith("Gift cards are free.\n")
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        await pilot.press("enter")
        screen.view.go_to(92)
        await pilot.press("s", "a")  # "Returns need a label.": not blocked, nothing waits
        await pilot.pause()
        assert [s.quote for s in app.editor.store.query("q-0002").evidence][-1] == (
            "Returns need a label."
        )


def test_a_bad_file_is_said_once_and_the_old_corpus_stays(folder: Path) -> None:
    watch = CorpusWatch(CorpusSource(folder))
    assert not watch.changed()
    (folder / "bad.md").write_bytes(b"\xff\xfe broken \xc3")
    assert watch.changed()
    with pytest.raises(SpanlabError, match=r"bad\.md"):
        watch.read()
    assert not watch.changed()  # the same broken state is not read again every tick
    (folder / "bad.md").write_text("Fixed.\n", encoding="utf-8")
    assert watch.changed()
    assert "bad.md" in watch.read()
    assert not watch.changed()
