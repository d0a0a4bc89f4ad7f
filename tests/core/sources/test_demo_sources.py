"""The demo's PDF and HTML page (§22, issue 42): the PDF is what its script writes, byte for
byte, and small; the labels on both sources name their pages and elements."""

from __future__ import annotations

import importlib.util

from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.resources import bundled

DEMO = bundled("data/demo")
PDF = "reference/installer-handbook.pdf"
HTML = "help/hub-lights.html"


def test_the_shipped_pdf_is_what_make_sources_writes() -> None:
    spec = importlib.util.spec_from_file_location("make_sources", DEMO / "make_sources.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shipped = (DEMO / "corpus" / PDF).read_bytes()
    assert module.handbook() == shipped
    assert len(shipped) < 30_000
    assert (DEMO / "corpus-v2" / PDF).read_bytes() == shipped


def test_the_source_queries_name_their_pages_and_elements() -> None:
    corpus = Corpus.read(DEMO / "corpus")
    queries = {q.id: q for q in labelset.read(DEMO / "labels.json", corpus).queries}
    where = {
        qid: [(s.doc, corpus.place(s.doc, s.start, s.end)) for s in queries[qid].evidence]
        for qid in ("q-0076", "q-0077", "q-0078", "q-0079", "q-0080", "q-0081")
    }
    assert where == {
        "q-0076": [(PDF, "page 1"), (PDF, "page 2")],  # the table's header, its row
        "q-0077": [(PDF, "pages 2-3")],  # one sentence over the page break
        "q-0078": [(PDF, "page 1")],
        "q-0079": [(PDF, "page 3"), (PDF, "page 3")],
        "q-0080": [(HTML, "html/body/main/article/ul/li[3]"),
                   (HTML, "html/body/main/article/ul/li[3]/ul/li[2]")],
        "q-0081": [(HTML, "html/body/main/article/table/thead/tr/th"),
                   (HTML, "html/body/main/article/table/tbody/tr[4]/td")],
    }  # fmt: skip
    source = corpus.documents[PDF].source
    assert source is not None and (source.pages, source.blank) == (3, ())
    for doc in (PDF, HTML):
        assert "Tallis Home Ltd" not in corpus.text(doc)  # the footer left out
        assert "Hub Installer Handbook" not in corpus.text(doc)  # the running header too
