"""Exports carry where each span is in its source (§22): Label Studio's task and doccano's
line name the page of a span in a PDF beside its offsets, and read back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query, Span, Status
from tests.core.sources.makers import handbook_pdf

QUOTE = "| Basic | 14 | 0 |"


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "handbook.pdf").write_bytes(handbook_pdf())
    (root / "notes.md").write_text("Basic plans give 14 days.\n", encoding="utf-8")
    return Corpus.read(root)


def query(corpus: Corpus) -> Query:
    text = corpus.text("handbook.pdf")
    start = text.index(QUOTE)
    pdf = Span.from_text(text, "handbook.pdf", start, start + len(QUOTE))
    md = Span.from_text(corpus.text("notes.md"), "notes.md", 0, 11)
    return Query("q-0001", "How long for Basic?", status=Status.LABELLED, evidence=(pdf, md))


def test_label_studio_names_the_page_of_a_pdf_span(corpus: Corpus, tmp_path: Path) -> None:
    q = query(corpus)
    out = tmp_path / "ls.json"
    formats.get("label-studio").write([q], corpus, out)
    tasks = json.loads(out.read_text(encoding="utf-8"))
    assert [t["data"].get("places") for t in tasks] == [{"q-0001-0": "page 2"}, None]
    back = formats.get("label-studio").read(out, corpus, existing=[])
    assert [(s.doc, s.start, s.end) for s in back.queries[0].evidence] == [
        (s.doc, s.start, s.end) for s in q.evidence
    ]


def test_doccano_names_the_page_of_a_pdf_span(corpus: Corpus, tmp_path: Path) -> None:
    q = query(corpus)
    out = tmp_path / "doccano.jsonl"
    formats.get("doccano").write([q], corpus, out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    start = corpus.text("handbook.pdf").index(QUOTE)
    assert [r.get("places") for r in rows] == [{f"{start}-{start + 18}": "page 2"}, None]
    back = formats.get("doccano").read(out, corpus, existing=[])
    assert sorted((s.doc, s.start, s.end) for q in back.queries for s in q.evidence) == sorted(
        (s.doc, s.start, s.end) for s in q.evidence
    )
