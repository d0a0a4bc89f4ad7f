"""A candidate's embedded collection follows the corpus (§6): a changed document adds its
new chunks and deletes its old ones, an interrupted update resumes, a version another
process reads is kept whole until it ends, and no other version's chunk reaches results."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evaluator.candidates import parse
from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.split import chunk_corpus, chunk_table
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.chroma import HNSW, connect
from evaluator.retrieval.chroma_follow import (
    ChromaRetriever,
    ContentIds,
    FileGuard,
    Version,
    _foreign,
    follow,
    present_ids,
    version_key,
)
from evaluator.retrieval.chroma_lease import hold, session, versions
from labeler.core.corpus.folder import Corpus
from tests.evaluator.chroma.test_chroma_index import DOCS, ranked_ids
from tests.evaluator.chroma.test_supersede import (  # noqa: F401 (server: the autouse fixture)
    EDITED,
    HASHED,
    collection_of,
    evaluate,
    server,
)

ROOT = Path(__file__).resolve().parents[3]
GROWN = {
    **DOCS,
    "returns.md": " ".join(f"Return rule {i} says item {i} goes back." for i in range(40)),
}
"""The test corpus plus a document of many chunks (several add batches)."""


def chunks_by_doc(texts: dict[str, str], candidate: str = "w20") -> dict[str, set[str]]:
    """Each document's chunks' Chroma ids, as the candidate cuts the corpus."""
    corpus = Corpus.from_texts(texts)
    spec = parse(HASHED, file="test.toml").candidate(candidate).spec
    ids = ContentIds(corpus.doc_hashes, spec.fingerprint())
    found: dict[str, set[str]] = {d: set() for d in texts}
    for c in chunk_corpus(spec, corpus):
        found[c.doc].add(ids.of(c))
    return found


def stored(folder: Path, name: str) -> tuple[set[str], dict[str, int]]:
    """A collection's ids and the versions it lists."""
    collection = connect(None, str(folder)).get_collection(name, embedding_function=None)
    return present_ids(collection), versions(collection.metadata or {})


def test_one_changed_document_adds_its_new_chunks_and_deletes_its_old(tmp_path: Path) -> None:
    name = collection_of(evaluate(tmp_path, DOCS), "w20")
    before, _ = stored(tmp_path / "chroma", name)
    second = evaluate(tmp_path, EDITED)
    assert collection_of(second, "w20") == name  # the same collection, updated
    old, new = chunks_by_doc(DOCS), chunks_by_doc(EDITED)
    added, removed = (
        new["shipping.md"] - old["shipping.md"],
        old["shipping.md"] - new["shipping.md"],
    )
    assert added and removed
    after, listed = stored(tmp_path / "chroma", name)
    assert after - before == added
    assert before - after == removed
    assert after == new["refunds.md"] | new["shipping.md"]  # every other id kept
    assert listed == {Corpus.from_texts(EDITED).hash: len(after)}
    assert sum(second.runs["w20"].embeddings.values()) == len(added)  # only those looked up
    assert second.runs["w20"].extra["reused"] is False
    fresh = evaluate(tmp_path / "fresh", EDITED)
    assert ranked_ids(second) == ranked_ids(fresh)  # as a build from scratch ranks them


class Vectors:
    """Deterministic vectors for the chunks sliced; the `fail`-th slice raises (Ctrl-C)."""

    def __init__(self, chunks: Sequence[Chunk], fail: int = 0) -> None:
        self.chunks, self.fail, self.calls = chunks, fail, 0

    def __getitem__(self, part: slice) -> np.ndarray:
        self.calls += 1
        if self.calls == self.fail:
            raise KeyboardInterrupt
        return np.stack([unit(f"{c.doc}:{c.start}:{c.end}") for c in self.chunks[part]])


def unit(key: str) -> np.ndarray:
    seed = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
    row = np.random.default_rng(seed).normal(size=8).astype(np.float32)
    return row / np.linalg.norm(row)


def version(folder: Path, texts: dict[str, str]) -> Version:
    corpus = Corpus.from_texts(texts)
    spec = parse(HASHED, file="test.toml").candidate("w20").spec
    ids = ContentIds(corpus.doc_hashes, spec.fingerprint())
    meta = {"candidate": "w20"}
    name = "spanlab-test-follow"
    # a table, as a run's pipeline gives (its columns are what cleanup and search read)
    return Version(FileGuard(folder, name), name, corpus.hash, chunk_table(spec, corpus), ids,
                   meta)  # fmt: skip


def test_a_pages_foreign_ids_from_a_table_are_those_the_chunks_list_finds(
    tmp_path: Path,
) -> None:
    a, b = version(tmp_path, GROWN), version(tmp_path, EDITED)
    assert isinstance(a.chunks, ChunkTable)
    page: list[tuple[str, dict[str, Any] | None]]
    page = [(a.ids.of(c), {"doc": c.doc, "start": c.start, "end": c.end}) for c in a.chunks]
    page += [(b.ids.of(c), {"doc": c.doc, "start": c.start, "end": c.end}) for c in b.chunks]
    c = a.chunks[3]
    page += [("0" * 16, {"doc": c.doc, "start": c.start, "end": c.end}),  # offsets, not its id
             (a.ids.of(c), {"doc": c.doc, "start": c.start, "end": c.end + 1}),
             (a.ids.of(c), None), ("x", {"doc": "none.md", "start": 0, "end": 3}),
             ("y", {"start": -4}), ("z", {"doc": c.doc, "start": "abc", "end": 1.5}),
             (a.ids.of(c), {"doc": c.doc, "start": True, "end": c.end})]  # fmt: skip
    cids, metas = [p[0] for p in page], [p[1] for p in page]
    foreign = _foreign(cids, metas, a.chunks, a.ids)
    assert foreign == _foreign(cids, metas, list(a.chunks), a.ids)
    mine = {(c.doc, c.start, c.end): a.ids.of(c) for c in a.chunks}
    at = [None if m is None else (m.get("doc"), m.get("start"), m.get("end")) for _, m in page]
    expected = [cid for (cid, _), w in zip(page, at, strict=True) if mine.get(w) != cid]  # type: ignore[arg-type]
    assert foreign == expected and len(expected) > len(page) - len(a.chunks) - len(b.chunks)


def test_an_interrupted_update_is_not_listed_and_the_next_run_adds_only_the_rest(
    tmp_path: Path,
) -> None:
    client = connect(None, str(tmp_path))
    a, b = version(tmp_path, DOCS), version(tmp_path, GROWN)
    follow(client, a, Vectors, HNSW)
    missing = len(b.chunks) - len(a.chunks)
    assert missing > 4
    with pytest.raises(KeyboardInterrupt):
        follow(client, b, lambda chunks: Vectors(chunks, fail=2), HNSW, batch=2)
    ids, listed = stored(tmp_path, a.name)
    assert listed == {a.corpus_hash: len(a.chunks)}  # b is not listed: it is not whole
    assert len(ids) == len(a.chunks) + 2  # the first batch went in
    _, added = follow(client, b, Vectors, HNSW, batch=2)
    assert added == missing - 2  # it resumes
    ids, listed = stored(tmp_path, a.name)
    assert listed == {b.corpus_hash: len(b.chunks)}  # nobody holds a: cleaned up
    assert ids == {b.ids.of(c) for c in b.chunks}
    assert follow(client, b, Vectors, HNSW)[1] == 0  # warm: nothing added


def test_an_abandoned_updates_chunks_are_removed_by_the_next_run(tmp_path: Path) -> None:
    client = connect(None, str(tmp_path))
    a, b = version(tmp_path, DOCS), version(tmp_path, GROWN)
    follow(client, a, Vectors, HNSW)
    with pytest.raises(KeyboardInterrupt):
        follow(client, b, lambda chunks: Vectors(chunks, fail=2), HNSW, batch=2)
    assert follow(client, a, Vectors, HNSW)[1] == 0  # a is whole: nothing added
    assert stored(tmp_path, a.name) == ({a.ids.of(c) for c in a.chunks},
                                        {a.corpus_hash: len(a.chunks)})  # fmt: skip


def search(collection: Any, v: Version, depth: int, query: np.ndarray) -> list[Chunk]:
    retriever = ChromaRetriever(collection, v.chunks, v.ids)
    return [r.chunk for r in retriever.search([QueryInput("q", "q", query)], depth)[0]]


def test_other_versions_chunks_never_appear_in_results(tmp_path: Path) -> None:
    client = connect(None, str(tmp_path))
    a, b = version(tmp_path, GROWN), version(tmp_path, EDITED)
    follow(client, a, Vectors, HNSW)
    with session():
        hold(tmp_path, version_key(a.name, a.corpus_hash))  # a run reading a, in this process
        collection, _ = follow(client, b, Vectors, HNSW)
        ids, listed = stored(tmp_path, a.name)
        assert set(listed) == {a.corpus_hash, b.corpus_hash}  # a is kept, whole
        assert ids == {v.ids.of(c) for v in (a, b) for c in v.chunks}
        query = unit("query")
        for v in (a, b):
            got = search(collection, v, 100, query)
            assert got == sorted(
                v.chunks, key=lambda c: -float(unit(f"{c.doc}:{c.start}:{c.end}") @ query)
            )
        # another run adds chunks nearer the query after b's retriever counted the foreign ones
        retriever = ChromaRetriever(collection, b.chunks, b.ids)
        first = retriever.search([QueryInput("q", "q", query)], 3)[0]
        near = np.stack([query + np.float32(1e-3) * unit(str(i)) for i in range(200)])
        spots = [{"doc": "shipping.md", "start": i, "end": i + 1} for i in range(200)]
        collection.add(ids=[f"near{i}" for i in range(200)], embeddings=near, metadatas=spots)
        again = retriever.search([QueryInput("q", "q", query)], 3)[0]
        assert [r.chunk for r in again] == [r.chunk for r in first]  # asked again with more


def test_a_version_another_process_reads_is_kept_until_it_ends(tmp_path: Path) -> None:
    evaluate(tmp_path, DOCS)
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    reader = subprocess.Popen(
        [sys.executable, "-m", "tests.evaluator.chroma.workers", "read", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )  # fmt: skip
    try:
        assert reader.stdin is not None and reader.stdout is not None
        seen = json.loads(reader.stdout.readline())
        second = evaluate(tmp_path, EDITED)  # updates w20's collection to the edited corpus
        name = collection_of(second, "w20")
        ids, listed = stored(tmp_path / "chroma", name)
        old, new = chunks_by_doc(DOCS), chunks_by_doc(EDITED)
        assert set(old["shipping.md"]) <= ids and set(new["shipping.md"]) <= ids
        assert set(listed) == {Corpus.from_texts(DOCS).hash, Corpus.from_texts(EDITED).hash}
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert json.loads(reader.stdout.readline()) == seen  # still only the first corpus's chunks
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert reader.wait(timeout=60) == 0
    finally:
        reader.kill()
    third = evaluate(tmp_path, EDITED)  # the reader is gone: this run cleans up
    ids, listed = stored(tmp_path / "chroma", name)
    assert listed == {Corpus.from_texts(EDITED).hash: len(ids)}
    assert ids == new["refunds.md"] | new["shipping.md"]
    assert third.runs["w20"].extra["reused"] is True
    assert ranked_ids(third) == ranked_ids(second)


def test_a_cleanup_cut_short_never_leaves_a_version_listed_that_is_not_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evaluator.retrieval.chroma_follow as follow_module

    client = connect(None, str(tmp_path))
    a, b = version(tmp_path, GROWN), version(tmp_path, EDITED)
    follow(client, a, Vectors, HNSW)
    collection = client.get_collection(a.name, embedding_function=None)
    real_delete, calls = collection.delete, []

    def delete_then_stop(ids: list[str]) -> None:
        calls.append(ids)
        if len(calls) > 2:  # the catch-up delete, one page of a's chunks, then Ctrl-C
            raise KeyboardInterrupt
        real_delete(ids=ids)

    monkeypatch.setattr(follow_module, "PAGE", 2)
    monkeypatch.setattr(follow_module, "_open", lambda *_: collection)
    monkeypatch.setattr(collection, "delete", delete_then_stop)
    with pytest.raises(KeyboardInterrupt):
        follow(client, b, Vectors, HNSW)
    monkeypatch.undo()
    _, listed = stored(tmp_path, a.name)
    assert listed == {b.corpus_hash: len(b.chunks)}  # a is no longer listed: it is not whole
    assert follow(client, a, Vectors, HNSW)[1] > 0  # so its next run adds back what is gone
    assert stored(tmp_path, a.name) == ({a.ids.of(c) for c in a.chunks},
                                        {a.corpus_hash: len(a.chunks)})  # fmt: skip


def test_a_lease_taken_while_its_file_is_removed_is_taken_again_on_the_new_file(
    tmp_path: Path,
) -> None:
    import fcntl
    import threading

    from evaluator.retrieval.chroma_lease import _held, _lease_path, unused

    key = "spanlab-x.version"
    path = _lease_path(tmp_path, key)
    with unused(tmp_path, key) as free:  # a cleanup holds the lease alone, then removes it
        assert free
        taker = threading.Thread(target=hold, args=(tmp_path, key))
        taker.start()
        taker.join(0.5)
        assert taker.is_alive()  # waits for the cleanup
    taker.join(5)
    assert not taker.is_alive() and path.exists()
    handle, _ = _held[str(path)]
    assert os.fstat(handle.fileno()).st_ino == path.stat().st_ino  # the file that is there
    with path.open() as other, pytest.raises(BlockingIOError):  # a later cleanup sees it held
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
