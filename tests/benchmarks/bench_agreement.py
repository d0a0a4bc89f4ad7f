"""`spanlab labels agreement` on 10,000 double-annotated queries (§11, §12): the whole
command against a plain sqlite3 read of the same rows, printed as a ratio."""

from __future__ import annotations

import time
from pathlib import Path

from typer.testing import CliRunner

from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store, Version
from labeler.core.values import Query, Span
from tests.conftest import write_corpus

QUERIES = 10_000


def build(root: Path) -> None:
    sentence = "Refunds are issued within 14 days of the return arriving at our warehouse. "
    files = {f"docs/d{i:03d}.md": f"# Document {i}\n\n" + sentence * 400 for i in range(100)}
    write_corpus(root / "corpus", files)
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    corpus = Corpus.read(root / "corpus")
    texts = {d.id: d.text for d in corpus}
    store = Store.open(root / ".spanlab" / "labels.db", create=False)
    queries, versions = [], []
    for n in range(QUERIES):
        doc = f"docs/d{n % 100:03d}.md"
        a = 14 + (n * 75) % 29_000
        queries.append(Query(f"q-{n + 1:05d}", f"question {n}", slices=(f"s{n % 7}",)))
        shift = n % 11
        for who, start in (("alice", a), ("bob", a + shift)):
            span = Span.from_text(texts[doc], doc, start, start + 60)
            versions.append((f"q-{n + 1:05d}", Version(who, False, (span,))))
    with store.write() as db:
        store.put_queries(queries, texts, db=db)
        store.put_versions(versions, texts, db=db)
    store.close()


def test_agreement_on_10k_double_annotated_queries(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.chdir(tmp_path)
    build(tmp_path)
    store = Store.open(tmp_path / ".spanlab" / "labels.db", create=False)
    started = time.perf_counter()
    store.conn.execute("SELECT * FROM spans").fetchall()
    store.conn.execute("SELECT * FROM queries").fetchall()
    store.conn.execute("SELECT * FROM versions").fetchall()
    raw = time.perf_counter() - started
    started = time.perf_counter()
    done = CliRunner().invoke(app, ["labels", "agreement"])
    took = time.perf_counter() - started
    assert done.exit_code == 0, done.stderr
    assert done.stdout.startswith(f"{QUERIES} double-annotated queries")
    print(f"\nlabels agreement on {QUERIES} double-annotated queries: {took:.2f} s; "
          f"plain read of the rows {raw:.3f} s; ratio {took / raw:.0f}x")  # fmt: skip
