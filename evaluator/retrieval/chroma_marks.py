"""A Chroma server's build lock and version leases, as marker collections (§6, §13).

A server is shared across machines, so no flock reaches every run that uses it; creating a
collection is its one test-and-set (a second create of a name fails). A family collection
`name` is guarded by:

- `name-lock`: the build lock, held by whoever created it;
- `name-r<version>-<token>`: one per run using a corpus version, its lease.

A holder touches its markers every BEAT seconds from a daemon thread; a marker untouched
for STALE seconds is a killed run's and the next run removes it. A marker is only ever
removed by its id (renamed to a name of the remover's alone, then deleted), so two runs
taking one stale lock over never remove each other's new one. A holder none of whose
touches went through for STALE / 2 (stopped, or cut off) stops with an error at its next
step, never carrying on unguarded. Staleness reads the marker's wall-clock time:
the machines sharing a server need clocks within a minute or so of each other.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.retrieval.chroma_lease import MARK, on_release
from labeler.core.display import shown
from labeler.core.errors import SpanlabError

TOUCHED = "spanlab_touched"
"""Metadata key: when a marker (or an older spanlab's private build) was last touched."""
STALE = 300.0
"""Seconds a marker may go untouched before it counts as a killed run's (at least: a run
whose calls may take longer writes its own, `STALE_AFTER`)."""
STALE_AFTER = "spanlab_stale"
"""Metadata key: the seconds after which its creator's marker counts as a killed run's."""
BEAT = 20.0
"""Seconds between touches of the markers a run holds."""
POLL = 0.5
"""Seconds between looks at a lock another run holds."""


@dataclass
class _Held:
    collection: Any
    """The marker collection (its id: a removed and re-created marker is another one)."""
    name: str
    """Its own name: each touch writes it again, so a removal's rename (to `-gone-`) is
    undone (the remover's delete then finds nothing) or, a newer marker having the name
    meanwhile, refused (lost): a removal under way never leaves a live marker unnamed."""
    meta: dict[str, Any]
    """Its metadata, written again with a new time at each touch."""
    lost: bool = False
    """Another run removed it (NotFound on touch)."""
    touching: threading.Lock = field(default_factory=threading.Lock)
    """Held by the thread while it touches, and by the release: no touch is in flight once
    the release has begun (it would name a marker back that the release just renamed)."""
    done: bool = False
    """Released: not to be touched again."""
    sure: float = field(default_factory=time.monotonic)
    """Monotonic time a touch that went through was sent (or the marker made): a run stopped
    or cut off since may no longer hold it, whether or not its thread has looked yet."""


@dataclass
class _Beat:
    """The touching thread and what it touches."""

    held: dict[int, _Held] = field(default_factory=dict)
    wake: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_beat = _Beat()


def _forked() -> None:
    """A forked child holds none of its parent's markers, and has no touching thread."""
    fresh = _Beat()
    _beat.held, _beat.wake, _beat.thread, _beat.lock = {}, fresh.wake, None, fresh.lock


os.register_at_fork(after_in_child=_forked)


def _run(b: _Beat, every: float) -> None:
    """Touch every held marker each `every` seconds until none is held."""
    while True:
        b.wake.wait(every)
        b.wake.clear()
        with b.lock:
            held = list(b.held.values())
            if not held:
                b.thread = None
                return
        for h in held:
            with h.touching:
                if not h.done:
                    _touch(h)


def _touch(h: _Held) -> None:
    from chromadb.errors import ChromaError, NotFoundError

    sent = time.monotonic()
    try:
        h.collection.modify(name=h.name, metadata={**h.meta, TOUCHED: time.time()})
        h.sure = sent
    except NotFoundError:
        h.lost = True
    except ChromaError as exc:  # the name is a newer marker's: this one was removed
        if "UNIQUE constraint" in str(exc) or "already exists" in str(exc):
            h.lost = True
    except Exception:  # a slow or gone server: the run's own next call says so
        return


def _start(h: _Held, every: float) -> None:
    with _beat.lock:
        _beat.held[id(h)] = h
        if _beat.thread is None:
            _beat.thread = threading.Thread(
                target=_run, args=(_beat, every), name="spanlab-chroma-touch", daemon=True
            )
            _beat.thread.start()


def _stop(h: _Held) -> None:
    with _beat.lock:
        _beat.held.pop(id(h), None)
        if not _beat.held:
            _beat.wake.set()


def _lapsed(message: str) -> SpanlabError:
    return SpanlabError(message, key="chroma_url", hint="run the command again")


@dataclass(frozen=True)
class Marker:
    """A marker collection as `spanlab cache` shows it."""

    of: str
    """The collection it guards."""
    kind: str
    """One of "lock", "lease" or "gone" (a removal cut short)."""
    live: bool
    """Touched within its stale time."""


def markers(found: Sequence[Any], now: float | None = None) -> list[Marker]:
    """The markers among a server's collections `found`."""
    now = time.time() if now is None else now
    out = []
    for c in found:
        meta = c.metadata or {}
        if not meta.get(MARK):
            continue
        out.append(Marker(str(meta.get("spanlab_of", "")), str(meta[MARK]), live(meta, now)))
    return out


def live(meta: Mapping[str, Any], now: float) -> bool:
    """Whether a marker with this metadata was touched within its creator's stale time."""
    touched, after = meta.get(TOUCHED), meta.get(STALE_AFTER, STALE)
    if not isinstance(after, int | float) or after <= 0:
        after = STALE
    return isinstance(touched, int | float) and now - touched <= after


class Marks:
    """The build lock and version leases of family collection `name` on a server."""

    def __init__(
        self, client: Any, name: str, where: str, *, stale: float = STALE, beat: float = BEAT,
        poll: float = POLL,
    ) -> None:  # fmt: skip
        self.client, self.name, self.where = client, name, where
        self.stale, self.beat, self.poll = stale, beat, poll
        self.held: list[_Held] = []
        """Markers this object holds (leases until the session ends, the lock while held)."""
        self.gone = False
        """The server stopped answering under the lock: releasing would only wait for it
        again (the lock goes stale instead)."""

    def lease(self, corpus_hash: str) -> None:
        """Hold corpus version `corpus_hash` of the collection until the lease session ends:
        no run's cleanup deletes its chunks meanwhile."""
        marker = f"{self.name}-r{corpus_hash[7:23]}-{secrets.token_hex(4)}"
        h = self._create(marker, "lease")
        assert h is not None  # a random token: nobody else creates this name
        on_release(lambda: self._release(h))

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the build lock of the collection; wait (saying so) while another run does."""
        import httpx

        h = self._take()
        try:
            yield
        except httpx.TimeoutException:  # a refused connection fails at once: release tries
            self.gone = True
            raise
        finally:
            self._release(h)

    def check(self) -> None:
        """Raise when another run removed a marker this run holds (it froze past STALE), or
        may have: no touch went through for half of STALE (after a stop, the thread that
        would see the removal may not have run yet; this run's own clock says so at once)."""
        for h in self.held:  # its own clock first: what a stopped run can say at once
            if time.monotonic() - h.sure > self.stale / 2:
                raise _lapsed(
                    f"this run could not touch {h.name} on {self.where} for over "
                    f"{self.stale / 2:g} s (was it stopped, or the server slow?): another "
                    "spanlab run may take it over"
                )
            if h.lost:
                raise _lapsed(
                    f"another spanlab run removed {h.name} on {self.where}: this "
                    f"run left it untouched for over {self.stale:g} s (was it stopped?)"
                )

    @contextlib.contextmanager
    def others_free(self, hashes: Sequence[str]) -> Iterator[bool]:
        """True when no live run holds a lease on any of these corpus versions (removing the
        leases killed runs left); the caller holds the lock, so a run taking one of them
        now waits for it and finds the version as the cleanup leaves it."""
        prefixes = tuple(f"{self.name}-r{h[7:23]}-" for h in hashes)
        free = True
        for found in self._markers("lease"):
            if found.name.startswith(prefixes) and not self._drop_if_stale(found, "lease"):
                free = False
        yield free

    def _markers(self, k: str) -> list[Any]:
        mine = f"{self.name}-"
        found = self.client.list_collections()
        return [c for c in found if c.name.startswith(mine) and (c.metadata or {}).get(MARK) == k]

    def _take(self) -> _Held:
        waited = False
        while True:
            self.check()
            h = self._create(f"{self.name}-lock", "lock")
            if h is not None:
                try:
                    self._sweep()
                except BaseException:  # a lock this run holds is never left touched
                    self._release(h)
                    raise
                return h
            held = self._get(f"{self.name}-lock")
            if held is not None and self._stale(held):
                self._drop_if_stale(held, "build lock")  # by its id: never a newer lock
                continue
            if not waited and held is not None:
                print(shown(f"waiting: another spanlab run is building {self.name} on "
                            f"{self.where}{self._until(held)}"), file=sys.stderr)  # fmt: skip
                waited = True
            time.sleep(self.poll)

    def _until(self, lock: Any) -> str:
        """How long at most the wait for `lock` lasts, if its holder was killed."""
        meta = lock.metadata or {}
        touched, after = meta.get(TOUCHED), meta.get(STALE_AFTER, STALE)
        if not isinstance(touched, int | float) or not isinstance(after, int | float):
            return ""
        left = max(0.0, touched + after - time.time())
        return f" (if it was killed, its lock is taken over in {left:.0f} s at most)"

    def _sweep(self) -> None:
        """Remove every marker of the collection a killed run left (leases of any version,
        and markers a removal was cut short in), so none piles up."""
        mine = {h.collection.id for h in self.held}
        for found in self.client.list_collections():
            meta = found.metadata or {}
            if found.name.startswith(f"{self.name}-") and meta.get(MARK) and \
                    found.id not in mine:  # fmt: skip
                self._drop_if_stale(found, str(meta.get(MARK)))

    def _create(self, marker: str, kind: str) -> _Held | None:
        """Create marker collection `marker` (None: it exists), held and touched."""
        from chromadb.errors import ChromaError

        meta = {MARK: kind, "spanlab_of": self.name, STALE_AFTER: self.stale}
        sent = time.monotonic()
        try:
            made = self.client.create_collection(
                marker, metadata={**meta, TOUCHED: time.time()}, embedding_function=None
            )
        except ChromaError as exc:
            # "already exists", though its holder may have let it go since: the caller
            # looks again. Any other refusal is the server's, said as such.
            if "already exists" in str(exc) or self._get(marker) is not None:
                return None
            raise SpanlabError(
                f"the Chroma server at {self.where} refused to create {marker}: {exc}",
                key="chroma_url",
            ) from None
        h = _Held(made, marker, meta, sure=sent)
        self.held.append(h)
        _start(h, self.beat)
        return h

    def _get(self, marker: str) -> Any:
        """Marker `marker`, or None: not there (or being deleted as asked: Chroma then says
        "Missing metadata segment")."""
        from chromadb.errors import ChromaError

        try:
            return self.client.get_collection(marker, embedding_function=None)
        except (ChromaError, ValueError):
            return None

    def _stale(self, found: Any) -> bool:
        return not live(found.metadata or {}, time.time())

    def _drop_if_stale(self, found: Any, what: str) -> bool:
        """Remove `found` (saying so) when untouched for STALE seconds; whether it was."""
        if not self._stale(found):
            return False
        touched = (found.metadata or {}).get(TOUCHED)
        age = f"{(time.time() - touched) / 60:.0f} min" if isinstance(touched, int | float) \
            else "ever"  # fmt: skip
        name = found.name  # (a rename changes the object's)
        if self._remove(found):
            print(shown(f"removed {name} on {self.where}: a killed run's {what} "
                        f"(untouched for {age})"), file=sys.stderr)  # fmt: skip
        return True

    def _remove(self, found: Any) -> bool:
        """Remove the very marker `found` (by its id: renamed to a name of this run's alone,
        then deleted by it), never a newer one under the same name; whether it was there."""
        from chromadb.errors import ChromaError, NotFoundError

        gone = f"{self.name}-gone-{secrets.token_hex(6)}"
        meta, name = {**(found.metadata or {}), MARK: "gone"}, found.name
        try:
            found.modify(name=gone, metadata=meta)  # by id: fails if another run removed it
        except (NotFoundError, ValueError):
            return False
        except ChromaError as exc:  # one being deleted meanwhile: "Missing metadata segment"
            there = self._get(name)
            if there is None or there.id != found.id:
                return False
            raise SpanlabError(
                f"the Chroma server at {self.where} would not remove {name}: {exc}",
                key="chroma_url",
            ) from None
        try:
            self.client.delete_collection(gone)
        except (NotFoundError, ValueError):  # its holder touched it back to its name
            return False
        return True

    def _release(self, h: _Held) -> None:
        """Stop touching `h` and remove it, unless another run already did (then the name
        may be another run's marker: left alone)."""
        _stop(h)
        with h.touching:
            h.done = True
        if h in self.held:
            self.held.remove(h)
        from evaluator.retrieval.chroma_http import STALLED

        if h.lost or self.gone or self.where in STALLED:
            return
        with contextlib.suppress(Exception):  # left behind, it goes stale: the next run's
            self._remove(h.collection)
