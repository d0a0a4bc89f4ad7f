"""A PDF is parsed by pdfium in C, so it is bounded from outside (§22, §13): a child process
under an address-space cap and a deadline. These tests hold the bound itself — the child is
killed, the file named, the rest of the corpus read — with caps low enough to be quick.

Measured on the shared 2-core machine under load (tests/benchmarks/bench_sources.py, the
default bounds: 1,536 MiB of address space, 300 s; time and peak RSS of a fresh process
that builds the input and extracts it, its PDF child included):

| Hostile source | Size | Outcome | Time | Peak RSS |
|---|---|---|---|---|
| PDF bomb, 64 MiB inflated content stream | 163 KB | read (under the cap) | 39 s | 1,129 MiB |
| PDF bomb, 96 MiB inflated | 245 KB | child killed at the cap, named | 33 s | 1,528 MiB |
| 500-page PDF of text (40 lines a page) | 414 KB | read | 80 s | 75 MiB |
| 501-page PDF | 415 KB | refused by the page count, named | 0.97 s | 45 MiB |
| HTML of 50 MB | 52 MB | refused by size, named | 0.23 s | 140 MiB |
| HTML nested 10,000 deep | 110 KB | refused at depth 256, named | 0.09 s | 40 MiB |
| DOCX zip bomb, 210 MiB of zeros | 214 KB | refused by its zip directory | < 0.01 s | 41 MiB |
| a DOCX named `.pdf` | 37 KB | refused by its first bytes, named | < 0.01 s | 53 MiB |

No test here asserts a time: they assert the outcome and the file's name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from labeler.core.corpus.extract import bounded, stored
from labeler.core.corpus.extract.base import SourceError
from labeler.core.corpus.extract.bounded import Bounds, extract_pdf_bounded
from labeler.core.corpus.extract.pdf import extract_pdf
from labeler.core.corpus.folder import Corpus
from tests.core.sources.makers import bomb_pdf, handbook_pdf, text_pdf

SMALL = Bounds(address_space=64 << 20, seconds=60)
"""Room for the interpreter, pdfium and a small PDF, not for a bomb of 4 MiB inflated."""


def test_the_child_gives_what_the_extractor_gives() -> None:
    raw = handbook_pdf()
    assert extract_pdf_bounded(raw, "handbook.pdf") == extract_pdf(raw, "handbook.pdf")


def test_the_childs_own_errors_come_back_with_their_words() -> None:
    with pytest.raises(SourceError) as caught:
        extract_pdf_bounded(handbook_pdf()[:900], "cut.pdf")
    assert caught.value.file == "cut.pdf"
    assert caught.value.message.startswith("cannot be read as a PDF (truncated or damaged")


def test_a_bomb_over_the_memory_cap_kills_the_child_and_names_the_file() -> None:
    assert extract_pdf_bounded(text_pdf(["fine"]), "fine.pdf", SMALL).text == "fine\n"
    with pytest.raises(SourceError) as caught:
        extract_pdf_bounded(bomb_pdf(4), "bomb.pdf", SMALL)
    assert caught.value.file == "bomb.pdf"
    assert caught.value.message.startswith("extraction stopped: the extractor died (code ")
    assert "out of its 64 MiB of memory" in caught.value.message


def test_a_pdf_past_the_deadline_is_killed_and_named() -> None:
    with pytest.raises(SourceError) as caught:
        extract_pdf_bounded(bomb_pdf(16), "slow.pdf", Bounds(seconds=0.5))
    assert caught.value.file == "slow.pdf"
    assert caught.value.message == "extraction stopped: it took longer than 0.5 s"
    assert caught.value.hint == bounded.HINT


def test_the_bomb_is_passed_over_named_and_the_rest_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bounded, "BOUNDS", SMALL)
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "bomb.pdf").write_bytes(bomb_pdf(4))
    (root / "good.pdf").write_bytes(text_pdf(["Refunds are paid within 14 days."]))
    (root / "notes.md").write_text("# Notes\n", encoding="utf-8")
    corpus = Corpus.read(root)
    assert sorted(corpus.documents) == ["good.pdf", "notes.md"]
    assert corpus.text("good.pdf") == "Refunds are paid within 14 days.\n"
    (skipped,) = corpus.passed_over
    assert skipped.startswith("bomb.pdf (extraction stopped: the extractor died (code ")
    assert skipped.endswith(f"; {bounded.HINT})")


def test_a_module_planted_in_the_working_folder_is_not_imported_by_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """spanlab runs in a shared project a member writes in: her `json.py` there stays unread."""
    marker = tmp_path / "ran"
    (tmp_path / "json.py").write_text(f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert extract_pdf_bounded(text_pdf(["fine"]), "fine.pdf").text == "fine\n"
    assert not marker.exists()


def test_an_answer_over_its_bound_is_not_read_and_the_file_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The child's answer goes to a file it may not grow past the bound; the parent reads no
    more than the bound (here 40 bytes, less than any extraction's JSON)."""
    monkeypatch.setattr(stored, "MAX_ANSWER", 40)
    with pytest.raises(SourceError) as caught:
        extract_pdf_bounded(text_pdf(["fine"]), "big.pdf")
    assert caught.value.file == "big.pdf"
    assert caught.value.message == "extraction stopped: its answer was over 40 bytes"


def test_no_interpreter_to_run_the_child_is_an_error_naming_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "executable", "")
    with pytest.raises(SourceError) as caught:
        extract_pdf_bounded(text_pdf(["fine"]), "fine.pdf")
    assert caught.value.file == "fine.pdf"
    assert "sys.executable is empty" in caught.value.message


@pytest.mark.parametrize("where", ["pages", "place"])
def test_an_answer_with_an_infinite_number_is_damaged_not_a_crash(where: str) -> None:
    """JSON lets `Infinity` through; int() of it overflows, which must read as Damaged."""
    good = stored.dumps(extract_pdf(text_pdf(["fine"]), "fine.pdf"))
    bad = (good.replace(b'"pages":1', b'"pages":Infinity') if where == "pages"
           else good.replace(b'"places":[[0', b'"places":[[-Infinity'))  # fmt: skip
    assert bad != good
    with pytest.raises(stored.Damaged):
        stored.loads(bad)
