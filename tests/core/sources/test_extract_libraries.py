"""The second libraries an extractor comparison may name (§22): pdfplumber's text of a PDF the
test makes, each line placed on its page and box; inscriptis's text of a page, each stretch
placed on its element; and hostile sources refused as the project's extractors refuse them,
the PDF ones in the same bounded child."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from labeler.core.corpus.extract import plumber
from labeler.core.corpus.extract.base import Extracted, SourceError
from labeler.core.corpus.extract.bounded import Bounds, extract_pdf_bounded
from labeler.core.corpus.extract.choices import choose
from labeler.core.corpus.extract.inscribed import extract_inscriptis
from labeler.core.corpus.extract.plumber import extract_pdfplumber
from tests.core.sources.makers import (
    HELP_HTML,
    blank_pdf,
    bomb_pdf,
    half_scanned_pdf,
    handbook_pdf,
    ligature_pdf,
    policy_docx,
    text_pdf,
)
from tests.core.sources.test_extract_bad_input import deep_html, encrypted_pdf

HANDBOOK = """Acme Handbook
Policies for customers of Acme in every country we serve
Refunds are paid within fourteen Shipping is free for all orders
days of the receipt of the pay- over fifty euros sent within the
ment by the team in charge. union, and costs five otherwise.
Page 1

Acme Handbook
Plan Days Fee
Basic 14 0
Pro 30 5
退款在十四天内支付
Page 2
"""
"""pdfplumber's own reading: the columns read across, the header, footer and hyphen kept."""


def by(name: str, **chosen: str) -> Callable[[bytes, str], Extracted]:
    """The extractor as an `[extraction]` alternative names it (a PDF: in the child)."""
    choice = choose(name, chosen, file="c.toml", key="x")
    suffix = ".pdf" if name.startswith("pdf") else ".html"
    return lambda raw, file: choice.extract(f"doc{suffix}", raw, file)


def test_pdfplumber_reads_each_line_onto_its_page_and_box() -> None:
    got = by("pdf:pdfplumber")(handbook_pdf(), "handbook.pdf")
    assert got.text == HANDBOOK
    assert got.extractor.name == "pdf:pdfplumber" and got.map.pages == 2
    plans = got.text.index("Plan Days Fee")
    place = got.map.at(plans)
    assert place is not None and (place.start, place.end) == (284, 297)
    assert place.describe() == "page 2 (50,698-309,709)"
    assert got.map.describe(got.text.index("Refunds"), plans + 4) == "pages 1-2"
    assert got.map.at(got.text.index("\n\nAcme")) is None  # a line end pdfplumber wrote


def test_the_child_gives_what_pdfplumber_gives_here() -> None:
    raw = handbook_pdf()
    assert extract_pdf_bounded(raw, "h.pdf", extractor="pdf:pdfplumber") == extract_pdfplumber(
        raw, "h.pdf"
    )


def test_layout_keeps_columns_apart_and_flow_keeps_the_drawing_order() -> None:
    laid = by("pdf:pdfplumber", layout="on")(handbook_pdf(), "h.pdf").text
    assert "       Plan            Days             Fee\n" in laid
    row = laid.index("Basic")
    assert laid[row - 7 : row] == " " * 7  # the indent is written, not placed
    flow = by("pdf:pdfplumber", order="flow")(handbook_pdf(), "h.pdf").text
    assert flow.startswith("Acme Handbook\nPage 1\nPolicies")  # drawn header, then footer
    assert by("pdf:pdfplumber")(ligature_pdf(), "l.pdf").text == "the file of the office\n"


def test_a_scanned_page_among_text_is_named_not_silent() -> None:
    got = extract_pdfplumber(half_scanned_pdf(), "half.pdf")
    assert got.text == "Text of page 1.\n\nText of page 3.\n"
    assert (got.map.pages, got.map.blank) == (3, (2,))
    place = got.map.at(got.text.index("Text of page 3"))
    assert place is not None and place.page == 3


HELP = """Home Help
  We use cookies. Accept

Acme Help Center

Refunds

Refunds are paid within 14 days.

  * Cards
      + Visa
      + Amex
  * Cash
Plan   Days
Basic  14\x20\x20

def refund(days): return days <= 14

Call refund(14) first.

© Acme
"""
"""inscriptis's layout: lists with bullets, the table in columns, the boilerplate kept."""


def test_inscriptis_places_every_stretch_on_the_element_that_wrote_it() -> None:
    got = by("html:inscriptis")(HELP_HTML.encode(), "help.html")
    assert got.text == HELP
    places = {got.text[p.start : p.end]: p.path for p in got.map.places}
    assert places["14 days"] == "html/body/main/p/b"
    assert places["Refunds are paid within"] == "html/body/main/p"
    assert places["+ Amex"] == "html/body/main/ul/li/ul/li[2]"
    assert places["14"] == "html/body/main/table/tr[2]/td[2]"
    assert places["Accept"] == "html/body/div/button"
    assert got.map.at(got.text.index("Basic") + 5) is None  # cell padding: unplaced
    assert len(got.map.places) == 22


def test_a_tag_name_no_attribute_could_hold_still_has_its_path() -> None:
    """Paths travel to inscriptis as numbers: a control character in a tag name (kept as
    outside text, shown escaped by the display rule) is no error."""
    got = extract_inscriptis(b"<p>one <x\x1fy>two</x\x1fy></p>", "odd.html")
    assert got.text == "one two\n"
    assert [(p.start, p.end, p.path) for p in got.map.places] == [
        (0, 3, "html/body/p"),
        (4, 7, "html/body/p/x\x1fy"),
    ]


def test_the_css_profile_is_a_setting_and_bound() -> None:
    page = b"<p>a<span>b</span>c<div>d</div></p>"
    relaxed = extract_inscriptis(page, "p.html")
    strict = extract_inscriptis(page, "p.html", {"css": "strict"})
    assert (relaxed.text, strict.text) == ("a b c\n\n  d\n", "abc\n\nd\n")
    assert dict(strict.extractor.settings)["css"] == "strict"


SMALL = Bounds(address_space=64 << 20, seconds=60)
"""Room for the interpreter, pdfplumber and a small PDF, not for a bomb of 1 MiB inflated
(pdfminer holds an object per character: 1 MiB costs it over 100 MiB)."""

CASES: list[tuple[str, str, Callable[[], bytes], str]] = [
    ("pdf:pdfplumber", "locked.pdf", encrypted_pdf, "the PDF is encrypted (it needs a password)"),
    ("pdf:pdfplumber", "cut.pdf", lambda: handbook_pdf()[:900],
     "cannot be read as a PDF (truncated or damaged: Unexpected EOF)"),
    ("pdf:pdfplumber", "scan.pdf", blank_pdf,
     "the PDF has no text (scanned pages? spanlab does no OCR)"),
    ("pdf:pdfplumber", "zip.pdf", policy_docx, "not a PDF: it does not start with %PDF-"),
    ("html:inscriptis", "pdf.html", handbook_pdf, "not an HTML page: it holds binary data"),
    ("html:inscriptis", "big.html", lambda: b"<p>" + b"a" * (50 << 20),
     "the page is 52,428,803 bytes; at most 10,485,760 are read"),
    ("html:inscriptis", "deep.html", lambda: deep_html(10_000),
     "elements nest deeper than 256 levels"),
    ("html:inscriptis", "script.html", lambda: b"<script>var x = 1;</script><!-- c -->",
     "the page has no text"),
    ("html:inscriptis", "blank.html", lambda: b"  \n ", "the page has no text"),
    ("html:inscriptis", "latin.html", lambda: "<p>caf\u00e9</p>".encode("latin-1"),
     "not valid UTF-8, and no charset"),
]  # fmt: skip


@pytest.mark.parametrize(("extractor", "name", "make", "message"), CASES,
                         ids=[c[1] for c in CASES])  # fmt: skip
def test_each_bad_source_is_an_error_naming_it(
    extractor: str, name: str, make: Callable[[], bytes], message: str
) -> None:
    raw = make()
    started = time.perf_counter()
    with pytest.raises(SourceError) as caught:
        by(extractor)(raw, name)
    assert time.perf_counter() - started < 5
    assert caught.value.file == name
    assert caught.value.message.startswith(message), caught.value.message


def test_a_page_nested_too_deep_is_refused_at_its_line() -> None:
    with pytest.raises(SourceError) as caught:
        extract_inscriptis(b"<p>top</p>\n" + deep_html(300), "deep.html")
    assert caught.value.line == 2


def test_a_pdfplumber_bomb_over_the_memory_cap_kills_the_child_and_names_the_file() -> None:
    read = extract_pdf_bounded(text_pdf(["fine"]), "fine.pdf", SMALL, extractor="pdf:pdfplumber")
    assert read.text == "fine\n"
    with pytest.raises(SourceError) as caught:
        extract_pdf_bounded(bomb_pdf(1), "bomb.pdf", SMALL, extractor="pdf:pdfplumber")
    assert caught.value.file == "bomb.pdf"
    assert caught.value.message.startswith("extraction stopped: the extractor died (code ")
    assert caught.value.message.endswith("out of its 64 MiB of memory, or a crash in pdfminer")


def test_a_pdfplumber_past_the_deadline_is_killed_and_named() -> None:
    with pytest.raises(SourceError) as caught:
        extract_pdf_bounded(bomb_pdf(1), "slow.pdf", Bounds(seconds=0.5),
                            extractor="pdf:pdfplumber")  # fmt: skip
    assert caught.value.message == "extraction stopped: it took longer than 0.5 s"


def test_the_page_cap_is_pdfplumbers_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plumber, "MAX_PAGES", 3)
    with pytest.raises(SourceError, match="the PDF has 4 pages; at most 3 are read"):
        extract_pdfplumber(text_pdf(["one line"], pages=4), "long.pdf")
