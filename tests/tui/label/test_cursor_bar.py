"""The cursor bar at 80 columns: the span number and offset stay whole, the document path
gives way (`…/name`, then the name cut in the middle), never dropped; outside text in a
path is shown by the display rule, not acted on."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from labeler.tui.label.panels import BAR_CELLS, cursor_line, short_path

PROCESS = "policies/returns-process.md"


def test_an_alternative_span_keeps_its_document_at_80_columns() -> None:
    """The demo's q-0075, span 2/3: the path used to vanish after `any-of 1 ·`."""
    line = cursor_line(PROCESS, 293, 3357, None, "", (2, 3), 1)
    assert line == "span 2/3 any-of 1 · returns-…cess.md @293/3357"
    assert cell_len(line) == BAR_CELLS


@pytest.mark.parametrize(
    ("doc", "span", "selection", "want"),
    [
        (PROCESS, None, None, "policies/returns-process.md @293/3357"),
        (PROCESS, (2, 3), (10, 250), "span 2/3 · returns-p…ocess.md sel 10–250 (240)"),
        ("a/b/c/d/e/f/g/h/i/j/k/policies/returns-process.md", None, None,
         "…/returns-process.md @293/3357"),
        ("a/b/c/d/e/f/g/h/i/j/k/policies/returns-process.md", (12, 13), None,
         "span 12/13 · …/returns-process.md @293/3357"),
        ("refunds.md", (1, 1), None, "span 1/1 · refunds.md @293/3357"),
    ],
)  # fmt: skip
def test_the_path_gives_way_first(
    doc: str, span: tuple[int, int] | None, selection: tuple[int, int] | None, want: str
) -> None:
    line = cursor_line(doc, 293, 3357, selection, "", span)
    assert line == want
    assert cell_len(line) <= BAR_CELLS


def test_a_wide_bar_shows_the_whole_path() -> None:
    line = cursor_line(PROCESS, 293, 3357, None, "", (2, 3), 1, width=80)
    assert line == "span 2/3 any-of 1 · policies/returns-process.md @293/3357"


def test_a_long_legend_leaves_the_path_its_minimum_and_is_what_the_bar_cuts() -> None:
    line = cursor_line(PROCESS, 293, 3357, None, "A " + "x" * 40 + " · B bob", (1, 2))
    assert line.startswith("span 1/2 · return…ss.md @293/3357 · A xxx")


HOSTILE = [
    ("a control sequence", "help/\x1b[2Jclear.md", "help/\\x1b[2Jclear.md"),
    ("a bidi override", "help/\u202eevil.md", "help/\\u202eevil.md"),
    ("a newline", "help/two\nlines.md", "help/two\\x0alines.md"),
    ("markup brackets", "help/[bold]x[/].md", "help/[bold]x[/].md"),
    ("wide characters", "規程/返品ポリシーについての説明書.md", "返品ポリシーに…ての説明書.md"),
    ("an emoji", "📦/" + "🚚" * 20 + ".md", "🚚" * 7 + "…" + "🚚" * 5 + ".md"),
    ("no folder", "x" * 60 + ".md", "x" * 14 + "…" + "x" * 11 + ".md"),
]
"""Hostile document names: (case, doc id, the path as the bar shows it with `span 1/2 ·`)."""


@pytest.mark.parametrize(("case", "doc", "shown_as"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_paths_are_shown_safely_and_fit(case: str, doc: str, shown_as: str) -> None:
    line = cursor_line(doc, 5, 80, None, "", (1, 2))
    assert line == f"span 1/2 · {shown_as} @5/80", case
    assert cell_len(line) <= BAR_CELLS
    assert not any(ch in line for ch in "\x1b\u202e\n")


@pytest.mark.parametrize(
    ("path", "cells", "want"),
    [
        (PROCESS, 27, PROCESS),
        (PROCESS, 26, "…/returns-process.md"),
        (PROCESS, 20, "…/returns-process.md"),
        (PROCESS, 19, "returns-p…rocess.md"),
        (PROCESS, 12, "return…ss.md"),
        ("返品.md", 5, "返…md"),  # the wide 品 would not fit whole: left out
    ],
)
def test_short_path(path: str, cells: int, want: str) -> None:
    assert short_path(path, cells) == want
    assert cell_len(want) <= cells
