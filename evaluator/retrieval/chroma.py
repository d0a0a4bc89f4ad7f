"""One Chroma collection per candidate, embedded or on a `chroma run` server (§5, §6).

Embedded, a candidate's collection follows the corpus in place (`chroma_follow`). On a
server, with no lock across machines, each corpus version gets its own collection (named
by corpus, splitter and embedding), built privately and published by a rename when
complete, so no run there sees a half-built one; an unfinished build is never used.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import re
import secrets
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import ParseResult, urlparse

from evaluator.chunk import Chunk
from evaluator.embedding.vectors import VectorSource
from evaluator.retrieval.base import embedded_text
from evaluator.retrieval.chroma_follow import (
    ChromaRetriever,
    ContentIds,
    Version,
    follow,
    version_key,
)
from evaluator.retrieval.chroma_lease import (
    BUILT,
    COMPLETE,
    FAMILY,
    collections,
    family,
    hold,
    remove_unused,
    superseded,
)
from evaluator.retrieval.request import IndexRequest
from labeler.core import sharing
from labeler.core.access import refusal_hint, refused_write
from labeler.core.display import describe, shown, unsafe_at
from labeler.core.errors import ConfigError

HNSW = {"space": "cosine", "ef_construction": 200, "max_neighbors": 16, "ef_search": 128}
"""Fixed for every candidate and recorded in the run, so ANN noise is one held variable."""
TOUCHED = "spanlab_touched"
"""When a private build last added a batch (Unix seconds): a killed build stops touching it."""
STALE_BUILD = 900.0
"""Seconds a private build may go untouched before the next build of its candidate removes
it as a killed run's leftover (a live build touches it at every batch it adds)."""
CONNECT_TIMEOUT = 5.0


def collection_name(corpus_hash: str, splitter_fingerprint: str, embedding_fingerprint: str) -> str:
    """A server's collection of one corpus version (`ids=content/1`: its Chroma ids are
    content ids, so a spanlab that used chunk ids never takes it for its own, nor drops it)."""
    payload = "\x1f".join([corpus_hash, splitter_fingerprint, embedding_fingerprint,
                           "ids=content/1"])  # fmt: skip
    return "spanlab-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:40]


def family_name(splitter_fingerprint: str, embedding_fingerprint: str) -> str:
    """An embedded folder's collection of a candidate family, whatever the corpus version."""
    payload = "\x1f".join([splitter_fingerprint, embedding_fingerprint])
    return "spanlab-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:40]


def parse_url(url: str) -> tuple[ParseResult, int]:
    """`http://host:port` parsed, with its port; anything else is a clear error. A URL
    with a control character (http.client's traceback) or a user and password (spanlab
    sends none; the password would be printed in every error naming the URL) is refused."""
    quoted = _USERINFO.sub("//…@", url)
    if (at := unsafe_at(url)) is not None:
        raise ConfigError(f"not a Chroma URL: it holds {describe(url, at)}", key="chroma_url")
    try:
        parsed = urlparse(url)
        port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    except ValueError as exc:  # "Invalid IPv6 URL", a port out of range or not a number
        raise ConfigError(f"not a Chroma URL: {quoted!r} ({exc})", key="chroma_url") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(
            f"not a Chroma URL: {quoted!r} (expected http://host:port)", key="chroma_url"
        )
    if quoted != url:
        raise ConfigError(
            f"not a Chroma URL: {quoted!r} holds a user or password, which spanlab never "
            "sends (expected http://host:port)",
            key="chroma_url",
        )
    return parsed, port


_USERINFO = re.compile(r"//[^/?#]*@")
"""The `user:password@` part of a URL, hidden before the URL is quoted."""


def connect(url: str | None, path: str | None, *, timeout: float | None = None) -> Any:
    """A Chroma client: HTTP when `url` is given (checked within 5 s, then every call
    bounded by `timeout` seconds), else embedded."""
    import chromadb
    from chromadb.config import Settings

    from evaluator.retrieval.chroma_http import CALL_TIMEOUT, connect_server, server_errors

    settings = Settings(anonymized_telemetry=False)
    if url is None:
        folder = Path(path or ".spanlab/chroma")
        try:
            with embedded_errors(folder):
                sharing.create_empty(folder / "chroma.sqlite3")  # SQLite would make it 0644
                return chromadb.PersistentClient(path=str(folder), settings=settings)
        except OSError as exc:
            message, hint = refused_write(folder, exc)
            raise ConfigError(
                f"Chroma's folder: {message}", file=str(folder), key="chroma_path", hint=hint
            ) from None
    parsed, port = parse_url(url)
    heartbeat = f"{url.rstrip('/')}/api/v2/heartbeat"
    timeout = CALL_TIMEOUT if timeout is None else timeout
    try:
        with urllib.request.urlopen(heartbeat, timeout=min(CONNECT_TIMEOUT, timeout)) as response:
            response.read()
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(
            f"cannot reach the Chroma server at {url}: {reason}",
            key="chroma_url",
            hint="start one with `chroma run --path DIR --port PORT`, or drop --chroma-url",
        ) from None
    with server_errors(url, timeout):
        ssl = parsed.scheme == "https"
        return connect_server(parsed.hostname or "", port, ssl, timeout, settings)


def chunks_digest(chunks: Sequence[Chunk], ids: ContentIds) -> str:
    """Which chunks an index holds: reuse needs the very same ids, not just as many."""
    joined = "\n".join(sorted(ids.of(c) for c in chunks))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:32]


def ensure_collection(
    client: Any,
    name: str,
    chunks: Sequence[Chunk],
    vectors: Any,
    *,
    ids: ContentIds,
    candidate: str,
    batch: int | None = None,
    private: bool = False,
    family: str = "",
) -> tuple[Any, bool]:
    """Return (collection, reused): a collection of exactly `chunks`, one corpus version (a
    server's). `vectors()` is called only when (re)building.

    With `private` (a shared server) the collection is built under a name of its own and
    renamed to `name` only when complete; when another run published first, its
    collection is used and the private one dropped. Without it the caller holds the
    build lock (`build_lock`), so nobody else builds `name` meanwhile.
    """
    digest = chunks_digest(chunks, ids)
    existing = _usable_or_dropped(client, name, digest)
    if existing is not None:
        return existing, True
    target = f"{name}-b{secrets.token_hex(4)}" if private else name
    if private:
        _sweep(client, name)
    try:
        meta = {"candidate": candidate, "chunks": len(chunks), "chunks_digest": digest,
                FAMILY: family}  # fmt: skip
        collection = _build(client, target, chunks, ids, vectors, meta, batch)
    except BaseException as exc:
        if private and not _server_gone(exc):  # a gone server: one more call would only wait
            _drop(client, target)
        raise
    if not private:
        return collection, False
    return _publish(client, collection, name, digest)


def _server_gone(exc: BaseException) -> bool:
    import httpx

    return isinstance(exc, httpx.HTTPError)


def _usable_or_dropped(client: Any, name: str, digest: str) -> Any:
    """The complete collection `name` with these chunks; anything else there is dropped."""
    from chromadb.errors import NotFoundError

    try:
        existing = client.get_collection(name, embedding_function=None)
    except (NotFoundError, ValueError):
        return None
    meta = existing.metadata or {}
    if meta.get(COMPLETE) and meta.get("chunks_digest") == digest:
        return existing
    _drop(client, name)
    return None


def _sweep(client: Any, name: str, now: float | None = None) -> list[str]:
    """Drop the private builds of `name` that a killed run left: incomplete, untouched for
    STALE_BUILD seconds. Says what it removed on stderr; returns the names."""
    now = time.time() if now is None else now
    removed = []
    for found in client.list_collections():
        meta = found.metadata or {}
        if not found.name.startswith(f"{name}-b") or meta.get(COMPLETE):
            continue
        touched = meta.get(TOUCHED)
        if isinstance(touched, int | float) and now - touched > STALE_BUILD:
            _drop(client, found.name)
            removed.append(found.name)
            age = f"untouched for {(now - touched) / 60:.0f} min"
            print(
                shown(f"removed {found.name}: a killed build's leftover ({age})"), file=sys.stderr
            )
    return removed


def _drop(client: Any, name: str) -> None:
    from chromadb.errors import NotFoundError

    with contextlib.suppress(NotFoundError, ValueError):
        client.delete_collection(name)


def _build(
    client: Any, name: str, chunks: Sequence[Chunk], ids: ContentIds, vectors: Any,
    meta: dict[str, Any], batch: int | None,
) -> Any:  # fmt: skip
    collection = client.create_collection(
        name, configuration={"hnsw": HNSW}, embedding_function=None,
        metadata={COMPLETE: False, TOUCHED: time.time(), **meta},
    )  # fmt: skip
    matrix = vectors()  # lazy: each add batch is embedded as it is added, and touches the build
    batch = batch or max(1, min(4096, int(client.get_max_batch_size())))
    for lo in range(0, len(chunks), batch):
        if lo:
            collection.modify(metadata={COMPLETE: False, TOUCHED: time.time(), **meta})
        part = chunks[lo : lo + batch]
        collection.add(
            ids=[ids.of(c) for c in part],
            embeddings=matrix[lo : lo + batch],
            metadatas=[{"doc": c.doc, "start": c.start, "end": c.end} for c in part],
        )  # fmt: skip
    # Only now, with every chunk in, is the collection usable.
    collection.modify(metadata={COMPLETE: True, **meta, BUILT: time.time_ns()})
    return collection


def _publish(client: Any, collection: Any, name: str, digest: str) -> tuple[Any, bool]:
    """Rename a complete private collection to `name`, unless another run got there first."""
    from chromadb.errors import ChromaError

    private = collection.name
    try:
        collection.modify(name=name)
        return collection, False
    except ChromaError:  # the name is taken: UNIQUE constraint
        winner = _usable_or_dropped(client, name, digest)
        _drop(client, private)
        if winner is None:
            raise
        return winner, True


@contextlib.contextmanager
def embedded_errors(folder: Path) -> Iterator[None]:
    """While embedded Chroma works in `folder`: its files the group's (§15), and a write
    its database refuses (another user's file, a full disk) one clear error, not a crash."""
    try:
        with sharing.library_writes(folder):
            yield
    except ConfigError:
        raise
    except Exception as exc:  # chromadb wraps SQLite's refusals in its own errors
        words = str(exc)
        if "readonly database" not in words and not sharing.disk_full(words):
            raise
        db = folder / "chroma.sqlite3"
        hint = refusal_hint(db, sharing.disk_full(words), database=True)
        raise ConfigError(f"Chroma cannot write: {words}", file=str(db), hint=hint) from None


@contextlib.contextmanager
def build_lock(folder: Path, name: str) -> Iterator[None]:
    """One builder of collection `name` in an embedded Chroma folder; others wait, saying so."""
    sharing.create_empty(folder / f".{name}.build-lock")
    with (folder / f".{name}.build-lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(
                shown(f"waiting: another spanlab run is building {name} in {folder}"),
                file=sys.stderr,
            )
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class LazyVectors:
    """A candidate's vectors as the build slices them: each slice of chunks is embedded
    (through the cache) when it is added, so memory holds one add batch, not the corpus."""

    def __init__(
        self, request: IndexRequest, vectors: VectorSource, advance: Any,
        chunks: Sequence[Chunk] | None = None,
    ) -> None:  # fmt: skip
        self.request, self.vectors, self.advance = request, vectors, advance
        self.chunks = request.chunks if chunks is None else chunks
        """The chunks the slices index (all of the candidate's, or those missing)."""
        self.counts: dict[str, int] = {}
        """Texts computed and taken from the cache so far."""

    def __getitem__(self, part: slice) -> Any:
        texts = [embedded_text(c, self.request.texts) for c in self.chunks[part]]
        matrix, counts = self.vectors.embed(texts, self.request.candidate, self.advance)
        for key, n in counts.items():
            self.counts[key] = self.counts.get(key, 0) + n
        return matrix


def open_chroma_retriever(
    request: IndexRequest, vectors: VectorSource
) -> tuple[ChromaRetriever, dict[str, Any], dict[str, int]]:
    """The candidate's collection holding this corpus version whole (reused, updated or built
    now) as a retriever."""
    from evaluator.retrieval.chroma_http import CALL_TIMEOUT

    url, timeout = request.chroma_url, request.chroma_timeout or CALL_TIMEOUT
    folder = request.chroma_path or Path(".spanlab/chroma")
    ids = ContentIds(request.doc_hashes, request.splitter_fingerprint)
    kin = family(request.splitter_fingerprint, vectors.embedder.fingerprint)
    if url is None:
        name, collection, reused, counts = _embedded(request, vectors, folder, ids, kin)
    else:
        name, collection, reused, counts = _on_server(request, vectors, ids, kin)
    extra = {"collection": name, "reused": reused, "hnsw": HNSW, "server": url}
    return ChromaRetriever(collection, request.chunks, ids, url, timeout), extra, counts


def _embedded(
    request: IndexRequest, vectors: VectorSource, folder: Path, ids: ContentIds, kin: str
) -> tuple[str, Any, bool, dict[str, int]]:
    """Update the family collection in place, then remove what it supersedes."""
    name = family_name(request.splitter_fingerprint, vectors.embedder.fingerprint)
    hold(folder, name)  # before opening: pruning never removes it under this run
    hold(folder, version_key(name, request.corpus_hash))  # nor cuts this version's chunks
    lazy = LazyVectors(request, vectors, None)
    with contextlib.ExitStack() as tasks, build_lock(folder, name), embedded_errors(folder):

        def missing(chunks: Sequence[Chunk]) -> LazyVectors:
            task = vectors.task(f"embedding {request.candidate}", len(chunks))
            lazy.chunks, lazy.advance = chunks, tasks.enter_context(task)
            return lazy

        client = connect(None, str(folder))
        meta = {"candidate": request.candidate, FAMILY: kin}
        version = Version(folder, name, request.corpus_hash, request.chunks, ids, meta)
        collection, added = follow(client, version, missing, HNSW)
        doomed = [c for c in superseded(collections(client), {name}) if c.family == kin]
        remove_unused(client, folder, doomed)
    return name, collection, added == 0, lazy.counts


def _on_server(
    request: IndexRequest, vectors: VectorSource, ids: ContentIds, kin: str
) -> tuple[str, Any, bool, dict[str, int]]:
    """One collection per corpus version, built privately and published (no lock across
    machines, so nothing on a server is updated in place)."""
    from evaluator.retrieval.chroma_http import CALL_TIMEOUT, server_errors

    url, timeout = request.chroma_url, request.chroma_timeout or CALL_TIMEOUT
    name = collection_name(
        request.corpus_hash, request.splitter_fingerprint, vectors.embedder.fingerprint
    )
    task = vectors.task(f"embedding {request.candidate}", len(request.chunks))
    with server_errors(url, timeout), task as advance:
        lazy = LazyVectors(request, vectors, advance)
        client = connect(url, None, timeout=timeout)
        collection, reused = ensure_collection(
            client, name, request.chunks, lambda: lazy, ids=ids, candidate=request.candidate,
            private=True, family=kin,
        )  # fmt: skip
    return name, collection, reused, lazy.counts
