"""Transitions to label (`T`, issue 33): the passages no query covers, most cut first; enter
starts a new query on one with its pattern set and its passage selected, so `a` files it on
the new query; a corpus with no transition, or one 2 MB line, says so. `B` moves a status
back with `S`'s rules."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Label, OptionList, Static

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Boundary, Span, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label.query_form import QueryForm
from labeler.tui.label.screen import LabelScreen
from labeler.tui.label.transitions_screen import LIMIT, MARK, NONE_FOUND, TransitionsScreen
from tests.cli.test_cli import initialised, run, workdir
from tests.tui.conftest import QUIET, record_notes

__all__ = ["workdir"]  # the fixture, used by name

GUIDE = (
    "# Refunds\n"  # 0..10
    "\n"
    "Refunds take five days. Cards are credited later.\n"  # 11..61
    "\n"
    "You need these:\n"  # 62..78
    "\n"
    "- the receipt;\n"  # 79..94
    "- the box.\n"
)
CANDIDATES = """\
[settings]
baseline = "c70"
retriever = "lexical"

[[candidate]]
name = "c70"
splitter = "chars"
size = 70
overlap = 0
"""


@pytest.fixture
def guide() -> Corpus:
    return Corpus.from_texts({"guide.md": GUIDE})


@pytest.fixture
def guide_store(tmp_path: Path, guide: Corpus) -> Iterator[Store]:
    s = Store.open(tmp_path / "labels.db")
    s.bind(guide.doc_hashes)
    s.add_query("What do refunds need?", annotator="ann")
    yield s
    s.close()


def guide_app(store: Store, corpus: Corpus, tmp_path: Path) -> SpanlabApp:
    (tmp_path / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    settings = replace(QUIET, candidates=tmp_path / "candidates.toml")
    return SpanlabApp(store, corpus, annotator="ann", settings=settings)


async def opened(app: SpanlabApp, pilot: Pilot[None]) -> TransitionsScreen:
    await app.workers.wait_for_complete()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, TransitionsScreen)
    return screen


async def test_t_lists_the_cut_transition_first(
    guide_store: Store, guide: Corpus, tmp_path: Path
) -> None:
    app = guide_app(guide_store, guide, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        screen = await opened(app, pilot)
        # c70 cuts at 70: inside the list passage (62..93), not the heading's (2..34)
        assert [(t.kind, t.start, t.end, t.cuts) for t in screen.transitions] == [
            (Boundary.LIST_INTRO_ITEM, 62, 93, ("c70",)),
            (Boundary.HEADING_PARAGRAPH, 2, 34, ()),
        ]
        assert screen.note == "2 without a query · most cut first (1 candidates in candidates.toml)"
        assert str(screen.query_one("#note", Label).render()) == screen.note
        assert "cut by c70" in str(screen.query_one("#preview", Static).render())


async def test_enter_starts_a_query_on_the_passage_and_a_files_it_there(
    guide_store: Store, guide: Corpus, tmp_path: Path
) -> None:
    app = guide_app(guide_store, guide, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        await opened(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, QueryForm)
        await pilot.press(*"What is needed?", "enter")
        await pilot.pause()
        label = app.screen
        assert isinstance(label, LabelScreen)
        assert label.current == "q-0002"
        assert (label.view.doc_id, label.view.selection) == ("guide.md", (62, 93))
        await pilot.press("a")
        await pilot.pause()
    made = guide_store.query("q-0002")
    assert (made.text, made.boundary) == ("What is needed?", Boundary.LIST_INTRO_ITEM)
    assert [(s.start, s.end, s.quote) for s in made.evidence] == [
        (62, 93, "You need these:\n\n- the receipt;")
    ]
    assert guide_store.query("q-0001").evidence == ()  # nothing on the query shown before


async def test_escape_on_the_form_makes_no_query(
    guide_store: Store, guide: Corpus, tmp_path: Path
) -> None:
    app = guide_app(guide_store, guide, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        await opened(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen)
    assert [q.id for q in guide_store.queries()] == ["q-0001"]


async def test_a_covered_passage_is_not_listed(
    guide_store: Store, guide: Corpus, tmp_path: Path
) -> None:
    span = Span.from_text(GUIDE, "guide.md", 81, 93)  # "the receipt;"
    guide_store.add_span("q-0001", span, GUIDE, annotator="ann")
    app = guide_app(guide_store, guide, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        screen = await opened(app, pilot)
        assert [t.kind for t in screen.transitions] == [Boundary.HEADING_PARAGRAPH]


@pytest.mark.parametrize(
    "text",
    ["Refunds take five days. Cards are credited later.\n", "word " * 400_000],
    ids=["plain prose", "2 MB on one line"],
)
async def test_nothing_to_label_says_so(tmp_path: Path, text: str) -> None:
    corpus = Corpus.from_texts({"plain.md": text})
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)  # no candidates file
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        screen = await opened(app, pilot)
        assert screen.note == "0 without a query · no candidates file: in document order"
        listing = screen.query_one(OptionList)
        assert listing.option_count == 1
        assert str(listing.get_option_at_index(0).prompt) == NONE_FOUND
        await pilot.press("enter")  # nothing to pick: stays
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen)
    assert store.queries() == []
    store.close()


async def test_a_broken_candidates_file_still_lists_in_document_order(
    guide_store: Store, guide: Corpus, tmp_path: Path
) -> None:
    app = guide_app(guide_store, guide, tmp_path)
    (tmp_path / "candidates.toml").write_text("[settings\n", encoding="utf-8")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        screen = await opened(app, pilot)
        assert [t.start for t in screen.transitions] == [2, 62]
        assert screen.note.startswith("2 without a query · candidates.toml: ")
        assert screen.note.endswith("; in document order")


async def test_b_moves_the_status_back_round_the_cycle(store: Store, corpus: Corpus) -> None:
    store.update_query("q-0001", annotator="ann", abstain=True)  # an empty draft stays one
    app = SpanlabApp(store, corpus, annotator="cat", settings=QUIET)  # reviews ann's query
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("B")  # draft goes round to reviewed: cat is not its author
        assert store.query("q-0001").status is Status.REVIEWED
        await pilot.press("B")
        assert store.query("q-0001").status is Status.LABELLED
        await pilot.press("B")
        assert store.query("q-0001").status is Status.DRAFT


async def test_b_will_not_let_an_author_mark_reviewed(
    store: Store, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add_span("q-0001", Span.from_text(corpus.text("billing.md"), "billing.md", 0, 23),
                   corpus.text("billing.md"), annotator="ann")  # fmt: skip
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("B")  # labelled -> draft
        assert store.query("q-0001").status is Status.DRAFT
        await pilot.press("B")  # draft -> reviewed: refused to its author
        assert store.query("q-0001").status is Status.DRAFT
        assert any("someone else must mark it reviewed" in n for n in notes), notes


async def test_keys_on_a_list_filtered_to_nothing_do_nothing(app: SpanlabApp, store: Store) -> None:
    before = [(q.id, q.status, q.evidence) for q in store.queries()]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f", *"nothing-matches-this", "enter")
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen)
        assert app.screen.state.current_query is None
        await pilot.press("B", "S", "a")
        assert isinstance(app.screen, LabelScreen)
    assert [(q.id, q.status, q.evidence) for q in store.queries()] == before


async def test_many_transitions_list_the_first_few_hundred(tmp_path: Path) -> None:
    corpus = Corpus.from_texts({"many.md": "# H\nText.\n" * 400})
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        screen = await opened(app, pilot)
        assert len(screen.transitions) == LIMIT == screen.query_one(OptionList).option_count
        assert screen.note.startswith(f"400 without a query (the first {LIMIT} listed) · ")
    store.close()


def test_spanlab_label_hands_the_app_the_projects_candidates_file(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    initialised(workdir)
    seen: dict[str, Any] = {}
    monkeypatch.setattr("labeler.tui.launch.run_app", lambda *a, **kw: seen.update(kw))
    done = run("label", "--annotator", "ann")
    assert done.exit_code == 0, done.stderr
    assert seen["candidates"] == workdir.resolve() / "candidates.toml"


async def test_t_marks_its_row_and_reopens_there(
    guide_store: Store, guide: Corpus, tmp_path: Path
) -> None:
    """The row under the cursor is marked by a glyph (not by colour alone), and a second
    `T` opens on it (issue 45)."""
    app = guide_app(guide_store, guide, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        screen = await opened(app, pilot)
        listing = screen.query_one(OptionList)

        def marked() -> list[bool]:
            rows = [listing.get_option_at_index(n).prompt for n in range(len(screen.transitions))]
            return [str(p).startswith(MARK) for p in rows]

        assert marked() == [True, False]
        await pilot.press("down")
        assert marked() == [False, True]
        await pilot.press("escape", "T")
        screen = await opened(app, pilot)
        listing = screen.query_one(OptionList)
        assert listing.highlighted == 1 and marked() == [False, True]
