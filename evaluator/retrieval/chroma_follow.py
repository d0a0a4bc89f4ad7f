"""A collection that follows the corpus: one per candidate family, embedded or on a server,
updated in place by what changed (§6), with the corpus versions it wholly holds listed in
its metadata.

Chroma ids are content ids (no corpus hash), so an unchanged document's chunks keep theirs
across corpus versions; a version is listed only after its last chunk is in, and another
version's chunks are deleted only when no run holds that version's lease (lease files in
an embedded folder, `FileGuard`; marker collections on a server, `chroma_marks.Marks`).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import time
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from evaluator.chunk import Chunk, Chunks
from evaluator.chunk_table import ChunkTable
from evaluator.retrieval.base import QueryInput, Ranked
from evaluator.retrieval.chroma_lease import BUILT, COMPLETE, VERSIONS, unused, versions

PAGE = 10_000
"""Ids read (or deleted) per call."""
_NO_SUCH_ID = "spanlab-catch-up"
"""Deleting this never-added id makes this process apply other processes' writes to its
in-memory index: measured with chromadb 1.5, a process that only reads keeps the index as
it first loaded it (other processes' adds and deletes unseen) until it writes."""


@dataclass(frozen=True)
class ContentIds:
    """Chroma ids of one candidate's chunks: sha256 over doc id, doc hash, start, end and the
    splitter fingerprint, so they do not change with other documents."""

    doc_hashes: Mapping[str, str]
    """Document id -> doc hash."""
    fingerprint: str
    """The splitter fingerprint."""

    def of(self, c: Chunk) -> str:
        return self.at(c.doc, c.start, c.end)

    def at(self, doc: str, start: int, end: int) -> str:
        """The id of the chunk at (doc, start, end) of this run's version of `doc`."""
        payload = "\x1f".join([doc, self.doc_hashes[doc], str(start), str(end),
                               self.fingerprint])  # fmt: skip
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def lookup(chunks: Sequence[Chunk], doc: str, start: int, end: int) -> Chunk | None:
    """The chunk at (doc, start, end) of `chunks` (sorted by doc, then start), by bisection
    (a table's columns, when it is one: no chunk is made and hashed per probe)."""
    if isinstance(chunks, ChunkTable):
        at = chunks.find(doc, start, end)
        return None if at is None else chunks[at]
    at = bisect.bisect_left(chunks, (doc, start), key=lambda c: (c.doc, c.start))
    while at < len(chunks) and (chunks[at].doc, chunks[at].start) == (doc, start):
        if chunks[at].end == end:
            return chunks[at]
        at += 1
    return None


def version_key(name: str, corpus_hash: str) -> str:
    """The lease name of one corpus version of collection `name`."""
    return f"{name}.{corpus_hash[7:23]}"


class Guard(Protocol):
    """Who else uses a family collection's corpus versions."""

    def others_free(self, hashes: Sequence[str]) -> AbstractContextManager[bool]:
        """Yield True while no other run holds a lease on any of these versions."""

    def check(self) -> None:
        """Raise when this run's guard of the collection lapsed (before each write)."""


@dataclass(frozen=True)
class FileGuard:
    """The leases of an embedded folder's collection `name`: lease files (`chroma_lease`)."""

    folder: Path
    name: str

    @contextlib.contextmanager
    def others_free(self, hashes: Sequence[str]) -> Iterator[bool]:
        with contextlib.ExitStack() as stack:
            keys = [version_key(self.name, h) for h in hashes]
            yield all([stack.enter_context(unused(self.folder, k)) for k in keys])

    def check(self) -> None:
        """A lease file's lock lives as long as this process: it never lapses."""


@dataclass(frozen=True)
class Version:
    """What one run indexes: a corpus version's chunks in one family collection."""

    guard: Guard
    """The leases of the collection's versions."""
    name: str
    """The family collection."""
    corpus_hash: str
    """The version."""
    chunks: Sequence[Chunk]
    """Its chunks, by doc then start."""
    ids: ContentIds
    """Their Chroma ids."""
    meta: Mapping[str, Any]
    """Metadata every publish writes (candidate, family)."""


def follow(
    client: Any, v: Version, vectors: Callable[[Sequence[Chunk]], Any], hnsw: Mapping[str, Any],
    batch: int | None = None,
) -> tuple[Any, int]:  # fmt: skip
    """The family collection holding version `v` whole, and how many chunks were added. The
    caller holds the version's lease (`version_key`), then the build lock; `vectors(missing)`
    is sliced per add batch, each slice embedded as it is added."""
    collection = _open(client, v, hnsw)
    collection.delete(ids=[_NO_SUCH_ID])
    listed = versions(collection.metadata or {})
    added = 0
    if listed.get(v.corpus_hash) != len(v.chunks):
        added = _add_missing(client, collection, v, vectors, batch)
        listed[v.corpus_hash] = len(v.chunks)
        _publish(collection, v, listed)
    if len(listed) > 1 or collection.count() != len(v.chunks):  # or an abandoned update's
        cleanup(collection, v, listed)
    return collection, added


def _open(client: Any, v: Version, hnsw: Mapping[str, Any]) -> Any:
    """The family collection, created empty (no version listed) if it is not there."""
    from chromadb.errors import NotFoundError

    try:
        return client.get_collection(v.name, embedding_function=None)
    except (NotFoundError, ValueError):
        return client.create_collection(
            v.name, configuration={"hnsw": dict(hnsw)}, embedding_function=None,
            metadata={COMPLETE: False, VERSIONS: "{}", "chunks": 0, **v.meta},
        )  # fmt: skip


def present_ids(collection: Any) -> set[str]:
    """Every id in the collection, read a page at a time."""
    found: set[str] = set()
    offset = 0
    while page := collection.get(include=[], limit=PAGE, offset=offset)["ids"]:
        found.update(page)
        offset += len(page)
    return found


def foreign_ids(collection: Any, v: Version) -> list[str]:
    """Ids in the collection that are not `v`'s chunks, read a page of ids and offsets at a
    time (no set of the collection's ids, nor of `v`'s)."""
    doomed: list[str] = []
    offset = 0
    while True:
        page = collection.get(include=["metadatas"], limit=PAGE, offset=offset)
        if not page["ids"]:
            return doomed
        doomed += _foreign(page["ids"], page["metadatas"], v.chunks, v.ids)
        offset += len(page["ids"])


def _foreign(
    cids: Sequence[str],
    metas: Sequence[Mapping[str, Any] | None],
    chunks: Sequence[Chunk],
    ids: ContentIds,
) -> list[str]:
    """Of one page of Chroma ids (with their metadata), those not this run's chunks: what
    `_own` finds None for, a table's columns searched once for the page."""
    if not isinstance(chunks, ChunkTable):
        return [
            cid for cid, m in zip(cids, metas, strict=True) if _own(m, chunks, ids, cid) is None
        ]
    where = [_where(m) for m in metas]
    at = chunks.find_many([w[0] for w in where], [w[1] for w in where], [w[2] for w in where])
    return [cid for cid, w, i in zip(cids, where, at.tolist(), strict=True)
            if i < 0 or ids.at(*w) != cid]  # fmt: skip


def _add_missing(
    client: Any, collection: Any, v: Version, vectors: Callable[[Sequence[Chunk]], Any],
    batch: int | None,
) -> int:  # fmt: skip
    missing = Picked(v.chunks, _missing(collection, v))
    if not missing:
        return 0
    matrix = vectors(missing)
    batch = batch or max(1, min(4096, int(client.get_max_batch_size())))
    for lo in range(0, len(missing), batch):
        part, embedded = missing[lo : lo + batch], matrix[lo : lo + batch]
        v.guard.check()  # after the batch's embedding, the slow part: a stop in it is seen
        collection.add(
            ids=[v.ids.of(c) for c in part], embeddings=embedded,
            metadatas=[{"doc": c.doc, "start": c.start, "end": c.end} for c in part],
        )  # fmt: skip
    return len(missing)


def _missing(collection: Any, v: Version) -> array[int]:
    """Indexes of `v`'s chunks the collection lacks, asked a window of ids at a time (no
    set of every id, no list of every chunk)."""
    found: array[int] = array("q")
    for lo in range(0, len(v.chunks), PAGE):
        window = [v.ids.of(c) for c in v.chunks[lo : lo + PAGE]]
        have = set(collection.get(ids=window, include=[])["ids"])
        found.extend(lo + i for i, cid in enumerate(window) if cid not in have)
    return found


class Picked(Chunks):
    """Some chunks of a sequence, by index, made when asked for."""

    def __init__(self, chunks: Sequence[Chunk], picked: Sequence[int]) -> None:
        self.chunks, self.picked = chunks, picked

    def __len__(self) -> int:
        return len(self.picked)

    def at(self, i: int) -> Chunk:
        return self.chunks[self.picked[i]]


def _publish(collection: Any, v: Version, listed: Mapping[str, int]) -> None:
    """List the versions in `listed` (whole metadata: modify replaces it)."""
    meta = {**(collection.metadata or {}), **v.meta, COMPLETE: True, BUILT: time.time_ns()}
    listing = json.dumps(dict(sorted(listed.items())))
    collection.modify(metadata={**meta, VERSIONS: listing, "chunks": len(v.chunks)})


def cleanup(collection: Any, v: Version, listed: Mapping[str, int]) -> int:
    """Delete every chunk not of `v` when no run holds another listed version, then list `v`
    alone; while one is held, change nothing (a later run cleans up). Chunks deleted."""
    others = [h for h in listed if h != v.corpus_hash]
    with v.guard.others_free(others) as free:
        if not free:
            return 0
        doomed = foreign_ids(collection, v)
        # Unlist the others first: a cleanup cut short never leaves a version listed whole
        # whose chunks are partly gone (what is left over, the count shows the next run).
        _publish(collection, v, {v.corpus_hash: len(v.chunks)})
        for lo in range(0, len(doomed), PAGE):
            v.guard.check()
            collection.delete(ids=doomed[lo : lo + PAGE])
        return len(doomed)


def own_results(
    answer: Mapping[str, Any], chunks: Sequence[Chunk], ids: ContentIds
) -> Iterator[list[tuple[Chunk, float]]]:
    """Per query of a Chroma answer, this run's chunks in rank order with their distance;
    another version's chunk (other doc hash, or offsets this run lacks) is left out."""
    for row_ids, metas, dists in zip(answer["ids"], answer["metadatas"], answer["distances"],
                                     strict=True):  # fmt: skip
        own = []
        for cid, meta, dist in zip(row_ids, metas, dists, strict=True):
            if (c := _own(meta, chunks, ids, cid)) is not None:
                own.append((c, float(dist)))
        yield own


def _own(
    meta: Mapping[str, Any] | None, chunks: Sequence[Chunk], ids: ContentIds, cid: str
) -> Chunk | None:
    """The chunk of `chunks` that Chroma id `cid` (with its metadata) is, or None: another
    version's (other doc hash, or offsets this run lacks)."""
    c = lookup(chunks, *_where(meta))
    return c if c is not None and ids.of(c) == cid else None


def _where(meta: Mapping[str, Any] | None) -> tuple[str, int, int]:
    """The (doc, start, end) a chunk's metadata names; offsets that are not integers (what
    another writer to the server may have left) as -1, which no chunk of this run has."""
    m = meta or {}
    start, end = m.get("start"), m.get("end")
    if type(start) is not int or type(end) is not int:  # a bool is not an offset either
        return str(m.get("doc")), -1, -1
    return str(m.get("doc")), start, end


class ChromaRetriever:
    """Searches a collection that may also hold other corpus versions' chunks (a deferred
    cleanup, another run adding meanwhile): asks for as many more results as there are such
    chunks and keeps this run's, found again by their offsets (no table of every chunk)."""

    def __init__(
        self, collection: Any, chunks: Sequence[Chunk], ids: ContentIds, url: str | None = None,
        timeout: float = 0, check: Callable[[], None] | None = None,
    ) -> None:  # fmt: skip
        self.collection = collection
        """The candidate's collection, holding every chunk of this run."""
        self.chunks = chunks
        """This run's chunks, by doc then start."""
        self.ids = ids
        """Their Chroma ids."""
        self.url = url
        """The server the collection lives on (None: embedded), for errors."""
        self.timeout = timeout
        """Seconds a call may take, for errors."""
        self.foreign = -1
        """Chunks in the collection that are not this run's (-1: not counted yet)."""
        self.check = check
        """Raises when this run's lease on its version lapsed (a server's), after a search:
        its chunks may be gone."""

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        from evaluator.retrieval.chroma_http import server_errors

        if not queries or not self.chunks:
            return [[] for _ in queries]
        rows: list[list[tuple[Chunk, float]]] = [[] for _ in queries]
        groups: dict[frozenset[str] | None, list[int]] = {}
        for i, q in enumerate(queries):  # one call per filter: Chroma's `where` is per call
            groups.setdefault(q.docs, []).append(i)
        for docs, at in groups.items():
            vectors = np.stack([np.asarray(queries[i].vector, dtype=np.float32) for i in at])
            want = len(self.chunks) if docs is None else self._held(docs)
            if want == 0:
                continue
            with server_errors(self.url, self.timeout):
                found = self._own(vectors, min(depth, want), _of_docs(docs))
            for i, own in zip(at, found, strict=True):
                rows[i] = own
        if self.check is not None:
            self.check()
        return [[Ranked(c, 1.0 - d) for c, d in own[:depth]] for own in rows]

    def _held(self, docs: frozenset[str]) -> int:
        return sum(1 for c in self.chunks if c.doc in docs)

    def _own(
        self, vectors: np.ndarray, want: int, where: dict[str, Any] | None = None
    ) -> list[list[tuple[Chunk, float]]]:
        """At least `want` of this run's chunks per query (or all the index has), by rank;
        `where` a metadata filter on the chunks' documents (§24)."""
        if self.foreign < 0:
            self.foreign = max(0, self.collection.count() - len(self.chunks))
        n = want + self.foreign
        while True:
            answer = self.collection.query(
                query_embeddings=vectors, n_results=n, include=["distances", "metadatas"],
                **({} if where is None else {"where": where}),
            )  # fmt: skip
            rows = list(own_results(answer, self.chunks, self.ids))
            got = [len(row) for row in answer["ids"]]
            if all(len(own) >= want or k < n for own, k in zip(rows, got, strict=True)):
                return rows
            # Short: another run added chunks since they were counted.
            self.foreign = max(0, self.collection.count() - len(self.chunks))
            n = max(2 * n, want + self.foreign)


def _of_docs(docs: frozenset[str] | None) -> dict[str, Any] | None:
    """Chroma's `where` for chunks of these documents (their `doc` metadata)."""
    return None if docs is None else {"doc": {"$in": sorted(docs)}}
