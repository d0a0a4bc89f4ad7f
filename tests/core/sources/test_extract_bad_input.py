"""Bad sources (§22, §13): each an error naming the file, bounded in time, and the rest of
the corpus read; random bytes never raise anything but that error."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reportlab.pdfgen import canvas

from labeler.core.corpus.canonical import canonicalize
from labeler.core.corpus.extract import pdf as pdf_module
from labeler.core.corpus.extract.base import Extracted, SourceError
from labeler.core.corpus.extract.docx import extract_docx
from labeler.core.corpus.extract.html import extract_html
from labeler.core.corpus.extract.inscribed import extract_inscriptis
from labeler.core.corpus.extract.pdf import extract_pdf
from labeler.core.corpus.extract.plumber import extract_pdfplumber
from labeler.core.corpus.extract.read import extract
from labeler.core.corpus.folder import Corpus
from tests.core.sources.makers import blank_pdf, handbook_pdf, policy_docx, text_pdf


def encrypted_pdf() -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out, encrypt="secret")
    c.drawString(50, 700, "locked")
    c.showPage()
    c.save()
    return out.getvalue()


def zip_bomb(mib: int) -> bytes:
    """A zip holding word/document.xml and `mib` MiB of zeros, written a MiB at a time."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", "<w:document/>")
        with z.open("word/media/zeros.bin", "w", force_zip64=True) as f:
            for _ in range(mib):
                f.write(bytes(1 << 20))
    return out.getvalue()


def deep_html(levels: int) -> bytes:
    return ("<div>" * levels + "deep" + "</div>" * levels).encode()


CASES: list[tuple[str, Callable[[], bytes], str]] = [
    ("locked.pdf", encrypted_pdf, "the PDF is encrypted (it needs a password)"),
    ("cut.pdf", lambda: handbook_pdf()[:900], "cannot be read as a PDF (truncated or damaged"),
    ("scan.pdf", blank_pdf, "the PDF has no text (scanned pages? spanlab does no OCR)"),
    ("zip.pdf", policy_docx, "not a PDF: it does not start with %PDF- (is its extension right?)"),
    ("pdf.docx", handbook_pdf, "not a DOCX: it is a PDF (is its extension right?)"),
    ("text.docx", lambda: b"hello", "not a DOCX: it is not a zip file"),
    ("zip.docx", lambda: _plain_zip(), "not a DOCX: a zip without word/document.xml"),
    ("bomb.docx", lambda: zip_bomb(210), "the DOCX inflates to 220,200,973 bytes; at most"),
    ("ratio.docx", lambda: zip_bomb(20), "its entry 'word/media/zeros.bin' inflates 20,971,520"),
    ("pdf.html", handbook_pdf, "not an HTML page: it holds binary data"),
    ("big.html", lambda: b"<p>" + b"a" * (50 << 20), "the page is 52,428,803 bytes; at most"),
    ("deep.html", lambda: deep_html(10_000), "elements nest deeper than 256 levels"),
    (
        "nav.html",
        lambda: b"<nav><a href=/>Home</a></nav><footer>(c)</footer>",
        "the page has no text once navigation and other boilerplate are left out",
    ),
    ("latin.html", lambda: "<p>caf\u00e9</p>".encode("latin-1"), "not valid UTF-8, and no charset"),
]


def _plain_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("notes.txt", "hello")
    return out.getvalue()


@pytest.mark.parametrize(("name", "make", "message"), CASES, ids=[c[0] for c in CASES])
def test_each_bad_source_is_an_error_naming_it(
    name: str, make: Callable[[], bytes], message: str
) -> None:
    raw = make()
    started = time.perf_counter()
    with pytest.raises(SourceError) as caught:
        extract(name, raw, name)
    assert time.perf_counter() - started < 5
    assert caught.value.file == name
    assert caught.value.message.startswith(message), caught.value.message


def test_a_declared_charset_is_read() -> None:
    raw = '<meta charset="latin-1"><p>caf\u00e9</p>'.encode("latin-1")
    assert extract_html(raw, "latin.html").text == "caf\u00e9\n"


def test_the_page_cap_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_module, "MAX_PAGES", 3)
    with pytest.raises(SourceError, match="the PDF has 4 pages; at most 3 are read"):
        extract_pdf(text_pdf(["one line"], pages=4), "long.pdf")


def test_bad_sources_are_skipped_named_and_the_rest_read(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    for name, make, _ in CASES[:6]:
        (root / name).write_bytes(make())
    (root / "good.pdf").write_bytes(text_pdf(["Refunds are paid within 14 days."]))
    (root / "notes.md").write_text("# Notes\n", encoding="utf-8")
    corpus = Corpus.read(root)
    assert sorted(corpus.documents) == ["good.pdf", "notes.md"]
    assert corpus.text("good.pdf") == "Refunds are paid within 14 days.\n"
    assert sorted(p.split(" ")[0] for p in corpus.passed_over) == sorted(c[0] for c in CASES[:6])
    assert (
        "scan.pdf (the PDF has no text (scanned pages? spanlab does no OCR); run OCR on it "
        "first, or remove it from the corpus)" in corpus.passed_over
    )


EXTRACTORS: list[Callable[[bytes, str], Extracted]] = [
    extract_pdf, extract_html, extract_docx, extract_pdfplumber, extract_inscriptis,
]  # fmt: skip


@pytest.mark.parametrize("extractor", EXTRACTORS,
                         ids=["pdf", "html", "docx", "pdfplumber", "inscriptis"])  # fmt: skip
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.binary(max_size=2000),
        st.binary(max_size=2000).map(lambda b: b"%PDF-1.4\n" + b),
        st.binary(max_size=2000).map(lambda b: b"PK\x03\x04" + b),
        st.text(max_size=500).map(lambda t: f"<p>{t}<![x<table><td>".encode()),
        st.text(max_size=500).map(lambda t: f"<pre>\r\n{t}\r</pre><p>e\u0301{t}".encode()),
    )
)
def test_random_bytes_give_text_or_a_source_error(
    extractor: Callable[[bytes, str], Extracted], raw: bytes
) -> None:
    try:
        got = extractor(raw, "random")
    except SourceError as exc:
        assert exc.file == "random"
        return
    assert got.text.strip() and got.text.endswith("\n")  # never empty text, bound silently
    assert canonicalize(got.text) == got.text
    for place in got.map.places:
        assert 0 <= place.start < place.end <= len(got.text)
