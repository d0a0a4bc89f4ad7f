"""Every key the help lists answers in every focus (issue 45, item 2): it acts (something on
screen or in the store changes) or it says something. The keys are the help's own list,
generated from the bindings, never written out here; each is pressed with the query list
focused and with the document focused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.binding import Binding

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.modes import label_keys
from labeler.tui.screens.help import HelpScreen
from tests.tui.conftest import BILLING, QUIET, record_notes

SHIPPING = (60, 91)
"""q-0002's span in billing.md; each key is pressed with 65..75 of it selected."""
LEAVES = {"ctrl+q"}
"""Keys the help lists that end the test itself (quit)."""


def help_keys(app: SpanlabApp) -> Iterator[str]:
    """Every key of every row the label screen's help shows, and the app's."""
    for _, bindings in [*label_keys(), ("Anywhere", SpanlabApp.BINDINGS)]:
        for b in bindings:
            if isinstance(b, Binding) and b.description:
                yield from (k.strip() for k in b.key.split(",") if k.strip() not in LEAVES)


def seen(app: SpanlabApp, store: Store) -> tuple[object, ...]:
    """What a key may change: the screen, the focus, the view, the list, the store."""
    screen = app.screen
    state: tuple[object, ...] = (id(screen), app.current_mode, store.data_version())
    if isinstance(screen, LabelScreen):
        view = screen.view
        state += (screen.focused, view.doc_id, view.cursor, view.selection, view.scroll_offset,
                  screen.state.current, view.marks)  # fmt: skip
    return state


async def ready(app: SpanlabApp, store: Store, focus: str) -> None:
    """Back to the label screen on q-0002, 65..75 selected, `focus` focused, its span whole."""
    while not isinstance(app.screen, LabelScreen) and len(app.screen_stack) > 1:
        app.pop_screen()
    app.action_switch("label")
    screen = app.screen
    assert isinstance(screen, LabelScreen)
    q = store.query("q-0002")
    if [(s.start, s.end) for s in q.evidence] != [SHIPPING]:
        for s in q.evidence:
            assert s.id is not None
            store.delete_span(s.id, annotator="bob")
        store.add_span("q-0002", Span.from_text(BILLING, "billing.md", *SHIPPING), BILLING,
                       annotator="bob")  # fmt: skip
        screen.reload()
    screen.show_query("q-0002")
    screen.open_document("billing.md")
    screen.view.select(65, 75)
    screen.query_one(f"#{focus}").focus()


@pytest.mark.parametrize("focus", ["queries", "document"])
async def test_every_listed_key_answers(
    store: Store, corpus: Corpus, focus: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    silent: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        bells: list[int] = []
        monkeypatch.setattr(app, "bell", lambda: bells.append(1))
        for key in dict.fromkeys(help_keys(app)):
            await ready(app, store, focus)
            await pilot.pause()
            before, said = seen(app, store), len(notes) + len(bells)
            await pilot.press(key)
            await pilot.pause()
            if seen(app, store) == before and len(notes) + len(bells) == said:
                silent.append(key)
    assert silent == []


async def test_a_in_the_list_says_where_to_select(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        screen.query_list.focus()
        await pilot.press("a", "x", "right_square_bracket", "r")
        assert notes == [
            "Select in the document first: tab moves there (then shift+arrows, w, s or drag).",
            "x deletes the span under the document's cursor: tab moves there.",
            "[ ] { } move the edges of the span under the document's cursor: tab moves there.",
            "r extends the span under the document's selection out to it: tab moves there.",
        ]
        await pilot.press("n")  # acts: into the document, at the query's next span
        assert screen.view.has_focus


async def test_help_says_which_part_has_the_focus(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        screen.query_list.focus()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        line = str(app.screen.query_one("#help-focus").render())
        assert line == (
            "Focus: the query list: arrows, home/end, pgup/pgdn move in it. n, N, shift+ and "
            "ctrl+arrows act in the document; a, x, [ ] { }, r, w, s need it (tab moves there)."
        )
        await pilot.press("escape")
        screen.view.focus()
        await pilot.press("question_mark")
        line = str(app.screen.query_one("#help-focus").render())
        assert line == "Focus: the document. Every key below acts here."


async def test_keys_with_nothing_to_act_on_say_so_rather_than_ring(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`<` with no code or table on screen, `s` on a blank line and `]` that would empty a
    span rang the bell, which a terminal over SSH often neither plays nor shows."""
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        span = screen.editor.store.query("q-0002").evidence[0]
        assert span.id is not None
        screen.editor.store.update_span(span.id, 60, 61, BILLING, annotator="bob")  # one char
        screen.show_query("q-0002")
        screen.open_document("billing.md")
        screen.view.focus()
        await pilot.pause()
        notes = record_notes(app, monkeypatch)
        bells: list[int] = []
        monkeypatch.setattr(app, "bell", lambda: bells.append(1))
        await pilot.press("less_than_sign")
        screen.view.go_to(len(BILLING))  # past the last line's break: no word, no sentence
        await pilot.press("s")
        screen.view.go_to(60)
        await pilot.press("right_square_bracket")  # its start past its end: empty
        await pilot.pause()
    assert bells == []
    assert notes == [
        "< and > shift code and tables sideways: none is on screen.",
        "No sentence here to snap to: move onto text first.",
        "The span cannot move that way: it would be empty or leave the text.",
    ]
