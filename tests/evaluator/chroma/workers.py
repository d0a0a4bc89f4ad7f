"""Processes the concurrency and fault tests start: real evaluations, and a paused build.

`python -m tests.evaluator.chroma.workers eval FOLDER NONCE [URL]` evaluates the test
corpus (plus one document that makes its collections new) and prints the ranked chunk ids
as JSON; `... pause URL NONCE READY GO` builds one collection on a server, stopping before
the first add until the file GO appears, and reports how the build ended; `... read FOLDER`
opens candidate w20's embedded collection for the test corpus (holding its leases until it
ends) and prints its ranked chunk ids, once at once and again after a line on stdin;
`... hold URL NAME STALE` holds NAME's build lock on a server and, until a check fails,
prints the wall-clock time just before each check that passes.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.candidates import parse
from evaluator.chunk import Chunk
from evaluator.chunking.split import chunk_corpus
from evaluator.embedding.vectors import VectorSource, no_progress
from evaluator.pipeline import RunOptions, run_evaluation
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.chroma import open_chroma_retriever
from evaluator.retrieval.chroma_follow import ChromaRetriever
from evaluator.retrieval.request import IndexRequest
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from tests.evaluator.chroma.test_chroma_index import CANDIDATES, DOCS, queries, ranked_ids
from tests.evaluator.chroma.test_supersede import HASHED


def corpus(nonce: str) -> Corpus:
    return Corpus.from_texts({**DOCS, "nonce.md": f"Run {nonce} writes this line.\n"})


def evaluate(folder: Path, nonce: str, url: str | None) -> dict[str, list[str]]:
    docs = corpus(nonce)
    options = RunOptions(
        chroma_path=folder / "chroma", cache_path=folder / "cache.db", progress=False,
        chroma_url=url,
    )  # fmt: skip
    result = run_evaluation(
        parse(CANDIDATES, file="test.toml"), docs, queries(docs),
        label_corpus_hash=docs.hash, label_set_hash="sha256:test", options=options,
    )  # fmt: skip
    return {f"{name}/{qid}": ids for (name, qid), ids in ranked_ids(result).items()}


class _Embedder:
    fingerprint = "test-embedder/1"
    """Part of the collection's name."""


class PausedVectors:
    """Vectors for a build that waits, after creating its collection, for a go-ahead."""

    embedder = _Embedder()

    def __init__(self, ready: Path, go: Path) -> None:
        self.ready, self.go = ready, go
        self.released = 0.0
        """When the go-ahead came: the build's first call to the server follows."""

    task = staticmethod(no_progress)

    def embed(self, texts: list[str], what: str, advance: Any = None) -> tuple[Any, dict[str, int]]:
        self.ready.touch()
        while not self.go.exists():
            time.sleep(0.05)
        self.released = time.monotonic()
        return np.random.default_rng(0).random((len(texts), 8)).astype(np.float32), {}


def paused_build(url: str, nonce: str, ready: Path, go: Path, timeout: float) -> int:
    chunks = [Chunk(f"c{i}", "a.md", i, i + 1) for i in range(50)]
    request = IndexRequest(
        "c", f"split-{nonce}", f"sha256:{nonce}", chunks, {"a.md": "x" * 60}, None, url,
        None, timeout, {"a.md": "sha256:a"},
    )  # fmt: skip
    vectors = PausedVectors(ready, go)
    try:
        open_chroma_retriever(request, vectors)  # type: ignore[arg-type]
    except SpanlabError as exc:
        print(json.dumps({"error": str(exc), "after": time.monotonic() - vectors.released}))
        return 2
    print(json.dumps({"error": None}))
    return 0


def reader(folder: Path) -> tuple[ChromaRetriever, list[QueryInput]]:
    """Candidate w20's retriever over the test corpus, and the test queries embedded."""
    docs = Corpus.from_texts(DOCS)
    spec = parse(HASHED, file="test.toml").candidate("w20").spec
    source = VectorSource("openai:hash", folder / "cache.db")
    request = IndexRequest(
        "w20", spec.fingerprint(), docs.hash, chunk_corpus(spec, docs),
        {d.id: d.text for d in docs}, source, None, folder / "chroma", None, docs.doc_hashes,
    )  # fmt: skip
    retriever, _, _ = open_chroma_retriever(request, source)
    asked = queries(docs)
    vectors, _ = source.embed([q.text for q in asked], "queries")
    return retriever, [QueryInput(q.id, q.text, vectors[i]) for i, q in enumerate(asked)]


def read(folder: Path) -> int:
    retriever, inputs = reader(folder)
    for _ in range(2):
        ranked = zip(inputs, retriever.search(inputs, 8), strict=True)
        print(json.dumps({q.id: [r.chunk.id for r in row] for q, row in ranked}), flush=True)
        sys.stdin.readline()
    return 0


def hold(url: str, name: str, stale: float) -> int:
    from evaluator.retrieval.chroma import connect
    from evaluator.retrieval.chroma_marks import Marks

    marks = Marks(connect(url, None), name, url, stale=stale, beat=stale / 4)
    with marks.lock():
        print("held", flush=True)
        try:
            while True:
                before = time.time()
                marks.check()
                print(before, flush=True)
                time.sleep(0.005)
        except SpanlabError as exc:
            print(json.dumps({"error": str(exc)}), flush=True)
    return 0


def main(argv: list[str]) -> int:
    if argv[0] == "hold":
        return hold(argv[1], argv[2], float(argv[3]))
    if argv[0] == "read":
        return read(Path(argv[1]))
    if argv[0] == "eval":
        url = argv[3] if len(argv) > 3 else None
        print(json.dumps(evaluate(Path(argv[1]), argv[2], url), sort_keys=True))
        return 0
    _, url, nonce, ready, go, timeout = argv
    return paused_build(url, nonce, Path(ready), Path(go), float(timeout))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
