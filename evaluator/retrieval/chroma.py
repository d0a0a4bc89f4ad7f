"""One Chroma collection per candidate family, embedded or on a `chroma run` server (§5, §6).

Either way a candidate's collection follows the corpus in place (`chroma_follow`): a
corpus change adds the changed documents' chunks and removes the superseded ones. An
embedded folder guards it with lease files and a flock; a server, shared across machines,
with marker collections (`chroma_marks`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import ParseResult, urlparse

from evaluator.chunk import Chunk
from evaluator.embedding.vectors import VectorSource
from evaluator.retrieval.base import embedded_text
from evaluator.retrieval.chroma_follow import (
    ChromaRetriever,
    ContentIds,
    FileGuard,
    Guard,
    Version,
    follow,
    version_key,
)
from evaluator.retrieval.chroma_lease import (
    BUILT,
    COMPLETE,
    FAMILY,
    MARK,
    collections,
    family,
    hold,
    remove_unused,
    superseded,
)
from evaluator.retrieval.chroma_marks import STALE, TOUCHED, Marks
from evaluator.retrieval.request import IndexRequest
from labeler.core.display import describe, shown, unsafe_at
from labeler.core.errors import ConfigError
from labeler.core.files import foreign_schema, sharing
from labeler.core.files.access import refusal_hint, refused_write
from labeler.core.secrets import redact

HNSW = {"space": "cosine", "ef_construction": 200, "max_neighbors": 16, "ef_search": 128}
"""Fixed for every candidate and recorded in the run, so ANN noise is one held variable."""
EARLIER_GRACE = 3600.0
"""Seconds after it was built that an earlier spanlab's collection of one corpus version
is removed from a server (`remove_per_version`)."""
STALE_BUILD = 900.0
"""Seconds an earlier spanlab's private server build (it touched it at every batch it
added) may go untouched before it counts as a killed run's leftover."""
CONNECT_TIMEOUT = 5.0
SERVER_BATCH = 1024
"""Chunks per add to a server: inserting 4,096 (HNSW, ef_construction 200) took a loaded
server longer than the default `chroma_timeout` once, at 50 MB."""


def family_name(splitter_fingerprint: str, embedding_fingerprint: str) -> str:
    """The collection of a candidate family, whatever the corpus version."""
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


CHROMA_FIX = "a lead removes it (Chroma makes none)"
"""What a refusal over a trigger or view in Chroma's database says to do."""
_USERINFO = re.compile(r"//[^/?#]*@")
"""The `user:password@` part of a URL, hidden before the URL is quoted."""


def connect(url: str | None, path: str | None, *, timeout: float | None = None) -> Any:
    """A Chroma client: HTTP when `url` is given (checked within 5 s, then every call
    bounded by `timeout` seconds), else embedded."""
    import chromadb
    import httpx
    from chromadb.config import Settings

    from evaluator.retrieval.chroma_http import CALL_TIMEOUT, connect_server, server_errors
    from evaluator.retrieval.chroma_reply import bounded_get

    settings = Settings(anonymized_telemetry=False)
    if url is None:
        folder = Path(path or ".spanlab/chroma")
        try:
            with embedded_errors(folder):
                sharing.create_empty(folder / "chroma.sqlite3")  # SQLite would make it 0644
                foreign_schema.check_file(
                    folder / "chroma.sqlite3", "Chroma's database", None, CHROMA_FIX
                )  # Chroma makes no trigger or view (§21)
                return _embedded_client(folder, lambda: chromadb.PersistentClient(
                    path=str(folder), settings=settings))  # fmt: skip
        except OSError as exc:
            message, hint = refused_write(folder, exc)
            raise ConfigError(
                f"Chroma's folder: {message}", file=str(folder), key="chroma_path", hint=hint
            ) from None
    parsed, port = parse_url(url)
    heartbeat = f"{url.rstrip('/')}/api/v2/heartbeat"
    timeout = CALL_TIMEOUT if timeout is None else timeout
    try:
        bounded_get(heartbeat, min(CONNECT_TIMEOUT, timeout))
    except (httpx.HTTPError, OSError) as exc:
        reason = getattr(exc, "reason", None) or f"{type(exc).__name__}: {exc}"
        raise ConfigError(
            f"cannot reach the Chroma server at {url}: {reason}",
            key="chroma_url",
            hint="start one with `chroma run --path DIR --port PORT`, or drop --chroma-url",
        ) from None
    with server_errors(url, timeout):
        ssl = parsed.scheme == "https"
        return connect_server(parsed.hostname or "", port, ssl, timeout, settings)


_CLIENTS: dict[tuple[str, int, int], Any] = {}
"""An embedded folder's client, by the folder and its database file's identity: opened
once per process and reused by every candidate (seven clients took 3.1 s of a warm run)."""


def _embedded_client(folder: Path, make: Callable[[], Any]) -> Any:
    """The process's client of `folder`, made by `make` the first time (or when the folder's
    database is another file than it was: removed and made again)."""
    db = (folder / "chroma.sqlite3").stat()
    key = (str(folder.resolve()), db.st_dev, db.st_ino)
    found = _CLIENTS.get(key)
    if found is None:
        found = _CLIENTS[key] = make()
    return found


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
    with sharing.open_lock(folder / f".{name}.build-lock") as handle:
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
    """The candidate's family collection, holding this corpus version whole (reused, or
    updated now by what changed), as a retriever."""
    from evaluator.retrieval.chroma_http import CALL_TIMEOUT

    url, timeout = request.chroma_url, request.chroma_timeout or CALL_TIMEOUT
    ids = ContentIds(request.doc_hashes, request.splitter_fingerprint)
    lazy = LazyVectors(request, vectors, None)
    kin = family(request.splitter_fingerprint, vectors.embedder.fingerprint)
    name = family_name(request.splitter_fingerprint, vectors.embedder.fingerprint)
    meta = {"candidate": request.candidate, FAMILY: kin}

    def version(guard: Guard) -> Version:
        return Version(guard, name, request.corpus_hash, request.chunks, ids, meta)

    if url is None:
        folder = request.chroma_path or Path(".spanlab/chroma")
        collection, added = _embedded(folder, version(FileGuard(folder, name)), vectors, lazy)
        check = None
    else:
        collection, added, check = _on_server(url, timeout, name, version, vectors, lazy)
    extra = {
        "collection": name,
        "reused": added == 0,
        "hnsw": HNSW,
        "server": redact(url) if url else url,
    }  # run.json holds no credential (§21)
    retriever = ChromaRetriever(collection, request.chunks, ids, url, timeout, check)
    return retriever, extra, lazy.counts


def _follow(
    client: Any, v: Version, vectors: VectorSource, lazy: LazyVectors, batch: int | None = None
) -> tuple[Any, int]:
    """`follow` with the missing chunks embedded through `lazy`, under one progress bar."""
    with contextlib.ExitStack() as tasks:

        def missing(chunks: Sequence[Chunk]) -> LazyVectors:
            task = vectors.task(f"embedding {lazy.request.candidate}", len(chunks))
            lazy.chunks, lazy.advance = chunks, tasks.enter_context(task)
            return lazy

        return follow(client, v, missing, HNSW, batch)


def _embedded(
    folder: Path, v: Version, vectors: VectorSource, lazy: LazyVectors
) -> tuple[Any, int]:
    """Update the family collection in place, then remove what it supersedes."""
    hold(folder, v.name)  # before opening: pruning never removes it under this run
    hold(folder, version_key(v.name, v.corpus_hash))  # nor cuts this version's chunks
    with build_lock(folder, v.name), embedded_errors(folder):
        client = connect(None, str(folder))
        collection, added = _follow(client, v, vectors, lazy)
        kin = v.meta[FAMILY]
        doomed = [c for c in superseded(collections(client), {v.name}) if c.family == kin]
        remove_unused(client, folder, doomed)
    return collection, added


def _on_server(
    url: str, timeout: float, name: str, version: Callable[[Guard], Version],
    vectors: VectorSource, lazy: LazyVectors,
) -> tuple[Any, int, Callable[[], None]]:  # fmt: skip
    """Update the family collection in place under the server's lock and leases (marker
    collections: no flock reaches across machines), then remove what an earlier spanlab
    kept there per corpus version. Also returns the check that this run's lease holds."""
    from evaluator.retrieval.chroma_http import server_errors

    with server_errors(url, timeout):
        client = connect(url, None, timeout=timeout)
        marks = Marks(client, name, url, stale=max(STALE, 4 * timeout))  # a slow call: no lapse
        v = version(marks)
        marks.lease(v.corpus_hash)  # before the lock: a cleanup then never cuts this version
        with marks.lock():
            collection, added = _follow(client, v, vectors, lazy, SERVER_BATCH)
            remove_per_version(client, name, str(v.meta[FAMILY]), url)
    return collection, added, marks.check


def remove_per_version(
    client: Any, name: str, kin: str, where: str, now: float | None = None
) -> list[str]:
    """Drop what an earlier spanlab left of family `kin` on a server beside its collection
    `name`, saying so on stderr: collections of one corpus version each (complete, built
    over EARLIER_GRACE seconds ago: an older spanlab elsewhere may still be searching a newer
    one, with no lease to show it), and private builds a killed run left (incomplete,
    untouched for STALE_BUILD seconds). The names dropped."""
    now = time.time() if now is None else now
    dropped = []
    for found in client.list_collections():
        meta = found.metadata or {}
        if found.name == name or meta.get(MARK) or meta.get(FAMILY) != kin:
            continue
        why = earlier_leftover(found.name, meta, now)
        if why is None:
            continue
        _drop(client, found.name)
        dropped.append(found.name)
        print(shown(f"removed {found.name} on {where}: {why}"), file=sys.stderr)
    return dropped


def earlier_leftover(name: str, meta: Mapping[str, Any], now: float) -> str | None:
    """Why the next eval of its family removes server collection `name` (an earlier
    spanlab's: one corpus version, complete and built over EARLIER_GRACE seconds ago, or a
    killed private build untouched for STALE_BUILD), or None: not one, or not yet."""
    kin = meta.get(FAMILY)
    if meta.get(MARK) or not isinstance(kin, str) or name[8:32] == kin:  # a family's own
        return None
    touched, built = meta.get(TOUCHED), meta.get(BUILT)
    if meta.get(COMPLETE):
        age = now - built / 1e9 if isinstance(built, int | float) else 0.0
        if age <= EARLIER_GRACE:
            return None  # an older spanlab elsewhere may still be searching it
        return f"an earlier spanlab's one-version collection (built {age / 3600:.0f} h ago)"
    age = now - touched if isinstance(touched, int | float) else 0.0
    if age <= STALE_BUILD:
        return None  # an earlier spanlab's build, still going
    return f"a killed build's leftover (untouched for {age / 60:.0f} min)"


def _drop(client: Any, name: str) -> None:
    from chromadb.errors import NotFoundError

    with contextlib.suppress(NotFoundError, ValueError):
        client.delete_collection(name)
