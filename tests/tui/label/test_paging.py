"""Pilot tests on a store bigger than the list's first page and the loader's chunk: the list,
filters, selection, span editing, undo and others' changes work over every query.

2,500 queries q-0001…q-2500, text "Question N"; every 500th is labelled; q-2491…q-2500 are
bob's; q-2500 has one span, billing.md 60–91 "Shipping is free over 50 euros.".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Label

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Query, Span, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label.screen import LabelScreen
from labeler.tui.label.state import CHUNK, PAGE
from labeler.tui.widgets.document_view import Role
from tests.tui.conftest import BILLING, QUIET

N = 2_500


def numbered(n: int) -> Query:
    spans = (Span.from_text(BILLING, "billing.md", 60, 91, annotator="bob"),) if n == N else ()
    return Query(
        f"q-{n:04d}",
        f"Question {n}",
        status=Status.LABELLED if n % 500 == 0 else Status.DRAFT,
        annotator="bob" if n > N - 10 else "ann",
        evidence=spans,
    )


@pytest.fixture
def big(tmp_path: Path, corpus: Corpus) -> Iterator[Store]:
    assert PAGE < CHUNK < N  # first page, then two chunks
    s = Store.open(tmp_path / "big.db")
    s.bind(corpus.doc_hashes)
    with s.write() as db:
        s.put_queries([numbered(n) for n in range(1, N + 1)], {"billing.md": BILLING}, db=db)
    yield s
    s.close()


async def until(pilot: Pilot[None], seen: Callable[[], bool]) -> None:
    for _ in range(200):
        if seen():
            return
        await pilot.pause(0.05)
    raise AssertionError("never seen")


def label_screen(app: SpanlabApp) -> LabelScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, LabelScreen)
    return screen


async def started(app: SpanlabApp, pilot: Pilot[None]) -> LabelScreen:
    s = label_screen(app)
    await until(pilot, lambda: s.state.complete)
    await pilot.pause()
    return s


def title(s: LabelScreen) -> str:
    """The list title's count line (the line under it is the annotator's progress)."""
    return str(s.query_one("#list-title", Label).render()).splitlines()[0]


async def test_every_query_is_listed_and_filtered(big: Store, corpus: Corpus) -> None:
    app = SpanlabApp(big, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        s = await started(app, pilot)
        assert (len(s.query_list.ids), title(s)) == (N, "2500/2500 queries · ann")
        await pilot.press("f", *"s:lab")
        assert s.query_list.ids == ["q-0500", "q-1000", "q-1500", "q-2000", "q-2500"]
        await pilot.press(*["backspace"] * 5, *"by:bob")
        assert s.query_list.ids == [f"q-{n}" for n in range(2491, 2501)]
        assert s.state.current == "q-2491"
        await pilot.press(*["backspace"] * 6, *"question 250")
        # "250" in the id or the text: 250, 1250, 2250, 2500.
        assert s.query_list.ids == ["q-0250", "q-1250", "q-2250", "q-2500"]
        assert title(s) == "4/2500 queries · ann"


async def test_select_edit_and_undo_past_the_first_page(big: Store, corpus: Corpus) -> None:
    app = SpanlabApp(big, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        s = await started(app, pilot)
        await pilot.press("end")
        assert (s.state.current, s.view.doc_id, s.view.cursor) == ("q-2500", "billing.md", 60)
        assert [(m.start, m.end, m.role) for m in s.view.marks.marks] == [(60, 91, Role.CURRENT)]
        await pilot.press("enter", "g", "0", "enter", "s", "a")
        assert [(e.start, e.end) for e in big.query("q-2500").evidence] == [(0, 23), (60, 91)]
        highlighted = s.query_list.render_line(s.query_list.size.height - 1).text
        assert (s.state.queries["q-2500"].spans, highlighted.split()[:3]) == (
            2,
            ["◐", "2500", "2"],
        )
        await pilot.press("ctrl+z")
        assert (len(big.query("q-2500").evidence), s.state.queries["q-2500"].spans) == (1, 1)
        await pilot.press("ctrl+y")
        assert (len(big.query("q-2500").evidence), s.state.queries["q-2500"].spans) == (2, 2)


async def test_opens_on_a_query_past_the_first_page(big: Store, corpus: Corpus) -> None:
    app = SpanlabApp(big, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(app, pilot)
        screen = LabelScreen(app.editor, query_id="q-2400")
        await app.push_screen(screen)
        assert (screen.current, screen.query_list.current_id) == ("q-2400", "q-2400")
        await until(pilot, lambda: screen.state.complete)
        assert (screen.current, screen.query_list.current_id) == ("q-2400", "q-2400")
        assert screen.query_list.highlighted == 2399


async def test_others_edits_and_imports_appear(big: Store, corpus: Corpus, tmp_path: Path) -> None:
    app = SpanlabApp(big, corpus, annotator="ann", settings=QUIET)
    other = Store.open(tmp_path / "big.db")
    async with app.run_test(size=(80, 24)) as pilot:
        s = await started(app, pilot)
        other.add_span("q-0001", Span.from_text(BILLING, "billing.md", 0, 23), BILLING,
                       annotator="bob")  # fmt: skip
        await until(pilot, lambda: s.state.queries["q-0001"].spans == 1)
        marks = [(m.start, m.role) for m in s.view.marks.marks]
        assert marks == [(0, Role.CURRENT), (60, Role.OTHER)]  # q-2500's span is faint
        with other.write() as db:  # logs nothing: every row is read again
            other.put_queries([Query("q-9000", "Imported?")], {}, db=db)
        await until(pilot, lambda: s.query_list.ids[-1:] == ["q-9000"])
        with other.write() as db:
            other.put_queries([Query("q-9001", "Imported too?")], {}, db=db)
        await until(pilot, lambda: s.query_list.ids[-2:] == ["q-9000", "q-9001"])
        assert title(s) == "2502/2502 queries · ann"
    other.close()
