"""Each extractor on a source the tests write (§22): the exact canonical text, and the source
map's page, box or path for the stretches that matter."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.corpus.canonical import canonicalize
from labeler.core.corpus.extract.docx import extract_docx
from labeler.core.corpus.extract.html import extract_html
from labeler.core.corpus.extract.pdf import extract_pdf
from labeler.core.corpus.extract.places import SourceMap
from labeler.core.corpus.folder import Corpus
from tests.core.sources.makers import (
    DEJAVU,
    HELP_HTML,
    HELP_TEXT,
    POLICY_TEXT,
    half_scanned_pdf,
    handbook_pdf,
    ligature_pdf,
    long_table_pdf,
    policy_docx,
)

HANDBOOK_TEXT = (
    "Policies for customers of Acme in every country we serve\n"
    "Refunds are paid within fourteen\n"
    "days of the receipt of the payment by the team in charge.\n"
    "Shipping is free for all orders\n"
    "over fifty euros sent within the\n"
    "union, and costs five otherwise.\n"
    "\n"
    "| Plan | Days | Fee |\n"
    "| --- | --- | --- |\n"
    "| Basic | 14 | 0 |\n"
    "| Pro | 30 | 5 |\n"
    "退款在十四天内支付\n"
)


def placed(text: str, source: SourceMap) -> list[tuple[str, int, str]]:
    return [(text[p.start : p.end], p.page, p.path) for p in source.places]


def test_pdf_reads_columns_in_order_drops_running_lines_and_joins_hyphens() -> None:
    got = extract_pdf(handbook_pdf(), "handbook.pdf")
    assert got.text == HANDBOOK_TEXT
    assert canonicalize(got.text) == got.text
    assert "Acme Handbook" not in got.text and "Page 1" not in got.text
    assert got.map.pages == 2


def test_pdf_map_gives_page_and_box_of_every_line() -> None:
    got = extract_pdf(handbook_pdf(), "handbook.pdf")
    where = placed(got.text, got.map)
    assert where[1:5] == [("Refunds are paid within fourteen", 1, ""),
                          ("days of the receipt of the pay", 1, ""),
                          ("ment by the team in charge.", 1, ""),
                          ("Shipping is free for all orders", 1, "")]  # fmt: skip
    right = got.map.places[4].box
    assert right is not None and 329 < right[0] < 332 and 677 < right[1] < 679
    start = got.text.index("Shipping")
    assert got.map.describe(start, start + 8) == "page 1"
    table = got.text.index("| Basic")
    assert got.map.at(table) is None  # the pipe is spanlab's, not the page's
    assert got.map.at(table + 2) == got.map.places[10]
    assert got.map.describe(table + 2, table + 7) == "page 2"
    assert got.map.describe(start, table + 7) == "pages 1-2"
    chinese = got.text.index("退款")
    assert got.map.describe(chinese, chinese + 2) == "page 2"


@pytest.mark.skipif(not DEJAVU.exists(), reason="needs the DejaVu Sans font")
def test_pdf_ligatures_are_written_as_their_letters() -> None:
    got = extract_pdf(ligature_pdf(), "ligature.pdf")
    assert got.text == "the file of the office\n"
    assert [(p.start, p.end, p.page) for p in got.map.places] == [(0, 22, 1)]


def test_html_drops_boilerplate_and_keeps_structure() -> None:
    got = extract_html(HELP_HTML.encode(), "help.html")
    assert got.text == HELP_TEXT
    for gone in ("cookies", "Home", "Acme Help Center", "tracking", "Accept", "©"):
        assert gone not in got.text


def test_html_map_gives_element_paths() -> None:
    got = extract_html(HELP_HTML.encode(), "help.html")
    where = {t: path for t, _, path in placed(got.text, got.map)}
    assert where["Refunds"] == "html/body/main/h1"
    assert where["14 days"] == "html/body/main/p/b"
    assert where["Amex"] == "html/body/main/ul/li/ul/li[2]"
    assert where["Basic"] == "html/body/main/table/tr[2]/td"
    assert where["refund(14)"] == "html/body/main/p[2]/code"
    code = got.text.index("def refund")
    assert got.map.describe(code, code + 10) == "html/body/main/pre/code"


def test_docx_headings_lists_and_table() -> None:
    got = extract_docx(policy_docx(), "policy.docx")
    assert got.text == POLICY_TEXT
    assert placed(got.text, got.map) == [
        ("Leave policy", 0, "paragraph 1"), ("Staff get 25 days of leave.", 0, "paragraph 2"),
        ("Unused days carry over", 0, "paragraph 3"), ("By grade", 0, "paragraph 4"),
        ("Grade", 0, "table 1 row 1 cell 1"), ("Days", 0, "table 1 row 1 cell 2"),
        ("A", 0, "table 1 row 2 cell 1"), ("25", 0, "table 1 row 2 cell 2"),
    ]  # fmt: skip


def test_html_offsets_move_through_nfc() -> None:
    got = extract_html("<p>Cafe\u0301 menu</p>".encode(), "cafe.html")
    assert got.text == "Caf\u00e9 menu\n"
    assert [(p.start, p.end) for p in got.map.places] == [(0, 9)]


def test_a_table_over_a_page_break_stays_one_table_under_its_header() -> None:
    got = extract_pdf(long_table_pdf(), "plans.pdf")
    assert got.text == (
        "| Plan | Days | Fee |\n| --- | --- | --- |\n| Basic | 14 | 0 |\n| Pro | 30 | 5 |\n"
        "| Team | 45 | 9 |\n| Firm | 60 | 12 |\n| Gold | 90 | 20 |\n"
    )
    firm = got.text.index("Firm")
    assert got.map.describe(firm, firm + 4) == "page 2"
    assert got.map.describe(got.text.index("Team"), firm + 4) == "pages 1-2"


def test_a_scanned_page_inside_a_pdf_is_named_and_the_rest_read(tmp_path: Path) -> None:
    """Page 2 is an image without text: the map names it, the corpus read says so."""
    got = extract_pdf(half_scanned_pdf(), "mixed.pdf")
    assert got.text == "Text of page 1.\n\nText of page 3.\n"
    assert (got.map.pages, got.map.blank) == (3, (2,))
    assert got.map.describe(got.text.index("page 3"), len(got.text) - 1) == "page 3"
    (tmp_path / "mixed.pdf").write_bytes(half_scanned_pdf())
    corpus = Corpus.read(tmp_path)
    assert corpus.text("mixed.pdf") == got.text
    assert corpus.passed_over == (
        "mixed.pdf page 2 (no text on it: a scanned page? spanlab does no OCR; the other "
        "pages are read)",
    )
