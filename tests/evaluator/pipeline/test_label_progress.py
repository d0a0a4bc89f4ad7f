"""`plan` and `eval` say how far they are while they read a large store's labels (issue 45
trial: 200,084 queries read and hashed in 6 s with no line on the screen): the labels are
read under a bar counting queries, then hashed under another, and the hash is the label
set's own."""

from __future__ import annotations

from pathlib import Path

from evaluator.pipeline.inputs import load_labels
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.project import config
from labeler.core.store import Store
from labeler.core.values import Span
from tests.progress_tasks import recording

TEXT = "Refunds take five days. Cards are credited within two days.\n"


def test_the_store_labels_are_read_and_hashed_under_bars(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text(TEXT, encoding="utf-8")
    (tmp_path / "spanlab.toml").write_text('corpus = "corpus"\ndb = "labels.db"\n')
    corpus = Corpus.read(tmp_path / "corpus")
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    store.add_query("How long?", annotator="ann")
    store.add_span("q-0001", Span.from_text(TEXT, "a.md", 0, 23), TEXT, annotator="ann")
    store.add_query("Is it free?", annotator="ann", abstain=True)
    store.add_query("A draft?", annotator="ann")
    seen: dict[str, list[int]] = {}
    task = recording(seen)

    labels = load_labels(None, config.load(tmp_path), corpus, task)
    assert seen == {"reading the labels": [3, 3], "hashing the labels": [3, 3]}
    assert [q.id for q in labels.queries] == ["q-0001", "q-0002", "q-0003"]
    whole = labelset.to_json(store.decided_queries()[0], corpus)
    assert labels.label_set_hash == whole["label_set_hash"]
    store.close()
