"""Markdown splitter: headings stay with their first paragraph, fences and tables with rows."""

from __future__ import annotations

from evaluator.chunking import Piece, SplitterSpec, split_text
from evaluator.chunking.md_blocks import parse_blocks

# 0-18 "Intro line here.\n\n", 18-28 "## Setup\n\n", 28-44 "Install it now.\n"
HEADED = "Intro line here.\n\n## Setup\n\nInstall it now.\n"

# 0-11 "Use this:\n\n", 11-17 "```sh\n", 17-28 "make build\n", 28-29 "\n",
# 29-39 "make test\n", 39-43 "```\n", 43-44 "\n", 44-54 "Done now.\n"
FENCED = "Use this:\n\n```sh\nmake build\n\nmake test\n```\n\nDone now.\n"

# 0-11 "## Prices\n\n", 11-27 header row, 27-43 delimiter row, then rows 43-59, 59-75, 75-91
TABLE = (
    "## Prices\n\n"
    "| item | cost |\n"
    "|------|------|\n"
    "| tea  | 2    |\n"
    "| cake | 4    |\n"
    "| pie  | 5    |\n"
)

# 0-9 "# Guide\n\n", 9-15 "## A\n\n", 15-28 "Alpha text.\n\n", 28-34 "## B\n\n",
# 34-45 "Beta text.\n"
NESTED = "# Guide\n\n## A\n\nAlpha text.\n\n## B\n\nBeta text.\n"


def pieces(text: str, size: int, overlap: int = 0, splitter: str = "markdown") -> list[Piece]:
    return split_text(SplitterSpec(splitter, size, overlap), text)


def test_blocks_tile_the_document() -> None:
    blocks = parse_blocks(FENCED)
    assert [(b.kind, b.start, b.end) for b in blocks] == [
        ("text", 0, 11),
        ("fence", 11, 44),
        ("text", 44, 54),
    ]
    assert blocks[1].head_end == 17
    assert blocks[1].lines == (17, 28, 29, 39)


def test_heading_stays_with_its_first_paragraph() -> None:
    # Greedy recursive packing ends the first chunk with the heading (18 + 10 <= 30)...
    assert [(p.start, p.end) for p in pieces(HEADED, 30, splitter="recursive")] == [
        (0, 28),
        (28, 44),
    ]
    # ...markdown starts a chunk at the heading and keeps it with "Install it now."
    assert pieces(HEADED, 30) == [Piece(0, 18), Piece(18, 44)]


def test_breadcrumb_prefix_leaves_out_sibling_headings() -> None:
    # "Alpha text." does not fit with its headings in 20 but is not cut at a space.
    assert pieces(NESTED, 20) == [Piece(0, 28), Piece(28, 45, "# Guide\n", ((0, 7),))]


def test_breadcrumb_on_a_chunk_that_starts_inside_a_section() -> None:
    text = "# Guide\n\n## Install\n\nStep one is easy.\n\nStep two is harder.\n"
    # 0-9 and 9-21 headings (21), 21-40 first paragraph (19), 40-60 second (20); size 45.
    assert pieces(text, 45) == [
        Piece(0, 40),
        Piece(40, 60, "# Guide\n## Install\n", ((0, 7), (9, 19))),
    ]


def test_code_fence_that_fits_is_not_cut() -> None:
    # Recursive cuts the fence at its blank line; markdown keeps it whole.
    first = pieces(FENCED, 35, splitter="recursive")[0]
    assert (first.start, first.end) == (0, 29)
    assert pieces(FENCED, 35) == [Piece(0, 11), Piece(11, 44), Piece(44, 54)]


def test_big_code_fence_is_cut_between_lines_with_the_fence_as_prefix() -> None:
    # Fence atoms: opening 11-17 glued to 17-28, 28-29, 29-39 glued to the closing 39-44.
    assert pieces(FENCED, 20) == [
        Piece(0, 11),
        Piece(11, 29),
        Piece(29, 44, "```sh\n", ((11, 17),)),
        Piece(44, 54),
    ]


def test_big_table_is_cut_between_rows_with_the_header_as_prefix() -> None:
    # Heading (11) + header and delimiter (32) + first row (16) = 59 <= 60; rows 2-3 next.
    header = "| item | cost |\n|------|------|\n"
    assert pieces(TABLE, 60) == [
        Piece(0, 59),
        Piece(59, 91, "## Prices\n" + header, ((0, 9), (11, 43))),
    ]


def test_table_that_fits_stays_whole() -> None:
    assert pieces(TABLE, 91) == [Piece(0, 91)]


def test_table_rows_with_overlap_keep_the_header_prefix() -> None:
    header = "## Prices\n| item | cost |\n|------|------|\n"
    # Size 60, overlap 16: the second chunk repeats row 1 (43-59).
    assert pieces(TABLE, 60, 16) == [Piece(0, 59), Piece(43, 91, header, ((0, 9), (11, 43)))]


def test_a_prefix_is_a_copy_of_the_text_at_its_source_offsets() -> None:
    """§17: each prefix is the text at its source ranges (a breadcrumb line each, then the
    head as it stands), so evidence in it can be credited to the chunk."""
    for text, size in ((NESTED, 20), (FENCED, 20), (TABLE, 60), (TABLE + "\n# Next\n\nx\n", 30)):
        for p in pieces(text, size):
            *crumbs, last = p.prefix_source or [(0, 0)]
            rebuilt = "".join(f"{text[a:b]}\n" for a, b in crumbs)
            tail = text[last[0] : last[1]]
            assert p.prefix in (rebuilt + tail, rebuilt + tail + "\n")
