"""Every byte of the store accounted for (§21): each account's writes leave their head
(sequence, chain hash, time, the event log's head) in `labels.db.heads/<account>` beside the
store (one folder per store file), a
file only that account can change, and every command compares the store with those heads.

A rollback (an old copy renamed over the store, or its old bytes written into it) leaves
the store behind some writer's head: every write then refuses and reads warn, naming whose
writes are missing. The check reads a few small files and one indexed row per writer, so it
costs milliseconds. The records' folder is sticky: a member adds her own, never replaces
another's. What the records hold to replay the writes lives in `journal` (`labels restore`).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import sqlite3
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from labeler.core.display import shown
from labeler.core.errors import SpanlabError, StoreError
from labeler.core.files import nofollow, sharing
from labeler.core.files.access import name_of_user, refusal_hint
from labeler.core.store import journal
from labeler.core.store.digests import writer

FOLDER = ".heads"
"""The records' folder is the store file's name and this, beside it (`labels.db.heads`)."""
TABLE = "writer-head"
"""The `row_digests` entries holding each writer's head as the store has it."""
MAX_HEAD = 4096
"""A head file is one short JSON line; anything longer is not spanlab's."""


@dataclass(frozen=True)
class Head:
    """Where one account's writes stand."""

    account: str
    """The login that made them."""
    seq: int
    """How many writes it made (through spanlab, to this store)."""
    chain: str
    """sha256 chained over every one of those writes (`journal.link`)."""
    at: str
    """When the last of them was committed (UTC, ISO)."""
    event: int = 0
    """The event log's last id after that write (0: none)."""
    event_digest: str = ""
    """That event's chain digest: a forged head row in the store does not bring it back."""

    def text(self) -> str:
        return json.dumps({"account": self.account, "seq": self.seq, "chain": self.chain,
                           "at": self.at, "event": self.event,
                           "event_digest": self.event_digest}) + "\n"  # fmt: skip


def folder_of(path: str) -> Path | None:
    """Where the records of the store at `path` live (None: an in-memory store)."""
    return None if path in ("", ":memory:") else Path(f"{path}{FOLDER}")


def _uid(account: str) -> int | None:
    try:
        return pwd.getpwnam(account).pw_uid
    except KeyError:
        return None


def _read_head(place: Path, account: str) -> Head | str:
    """The head in `place` (a Head), or why it does not count (owner, mode, content)."""
    try:
        fd = nofollow.open_regular(place, os.O_RDONLY)
    except (OSError, SpanlabError) as exc:
        return f"{place} cannot be read ({getattr(exc, 'strerror', None) or exc})"
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        owner = name_of_user(st.st_uid)
        if st.st_uid != _uid(account) or st.st_nlink != 1 or st.st_mode & 0o022:
            return (f"{place} (owner {owner}, mode {stat.S_IMODE(st.st_mode):04o}) is not "
                    f"{account}'s own record: ignored")  # fmt: skip
        raw = handle.read(MAX_HEAD + 1)
    try:
        data = json.loads(raw.decode("utf-8"))
        return Head(account, int(data["seq"]), str(data["chain"]), str(data["at"]),
                    int(data.get("event", 0)), str(data.get("event_digest", "")))  # fmt: skip
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError):
        return f"{place} is not a head spanlab wrote: ignored"


def read_heads(folder: Path) -> tuple[dict[str, Head], list[str]]:
    """Every account's head in `folder`, and why any file there does not count."""
    heads: dict[str, Head] = {}
    notes: list[str] = []
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return heads, notes
    except OSError as exc:
        return heads, [f"{folder} cannot be read ({exc.strerror})"]
    for name in names:
        if name.startswith(".") or name.endswith(journal.SUFFIX):
            continue
        found = _read_head(folder / name, name)
        if isinstance(found, Head):
            heads[name] = found
        else:
            notes.append(found)
    return heads, notes


def store_heads(conn: sqlite3.Connection) -> dict[str, tuple[int, str]]:
    """{account: (seq, chain)} as the store holds them."""
    rows = conn.execute("SELECT key, digest FROM main.row_digests WHERE tbl = ?", [TABLE])
    out = {}
    for account, value in rows:
        seq, _, chain = str(value).partition(":")
        with contextlib.suppress(ValueError):
            out[str(account)] = (int(seq), chain)
    return out


@dataclass(frozen=True)
class State:
    """The store against the writers' heads: what is missing (writes refuse) and what
    cannot be told (warnings)."""

    lacking: tuple[str, ...] = ()
    """Writes the store lacks, each said in a sentence."""
    notes: tuple[str, ...] = ()
    """Records that do not count or lag behind the store: said, not refused."""

    def refusal(self, path: str) -> StoreError | None:
        if not self.lacking:
            return None
        return StoreError(
            f"{'; '.join(self.lacking)}: it was replaced or rolled back; nothing was written",
            file=path,
            hint="`spanlab labels restore` brings every write back from the writers' own "
            f"records ({folder_of(path)}); records that are gone a lead puts back, or, "
            "having checked the store against a backup, forgets (`spanlab labels restore "
            "--forget-gone`); reading commands still work",
        )

    def warnings(self) -> list[str]:
        said = [f"{w}: it was replaced or rolled back; every write refuses until "
                "`spanlab labels restore`" for w in self.lacking]  # fmt: skip
        return [shown(s, lines=False) for s in (*said, *self.notes)]


def _when(at: str) -> str:
    return f"{at[11:16]} UTC" if len(at) >= 16 else at


def _compare(conn: sqlite3.Connection, head: Head, have: tuple[int, str] | None) -> str | None:
    """Why the store lacks `head`'s writes (None: it holds them)."""
    seq, chain = have or (0, "")
    who = head.account
    if head.seq > seq:
        n = head.seq - seq
        span = f"seq {seq + 1}" if n == 1 else f"seq {seq + 1}–{head.seq}"
        return f"the store lacks {who}'s last {n} write{'s' * (n > 1)} ({span}, {_when(head.at)})"
    if head.seq == seq and head.chain != chain:
        return f"the store's record of {who}'s writes is not hers (seq {seq}: the chain differs)"
    if head.event:
        row = conn.execute("SELECT digest FROM main.events WHERE id = ?", [head.event]).fetchone()
        if row is None or (head.event_digest and row[0] != head.event_digest):
            return (f"the store lacks the event log {who}'s last write saw (event "
                    f"{head.event}, {_when(head.at)})")  # fmt: skip
    return None


def check(conn: sqlite3.Connection, path: str) -> State:
    """The store at `path` against every writer's head: a few small files, one row each."""
    folder = folder_of(path)
    if folder is None:
        return State()
    _claim(folder)
    heads, notes = read_heads(folder)
    have = store_heads(conn)
    lacking = []
    for account, head in sorted(heads.items()):
        why = _compare(conn, head, have.get(account))
        if why is not None:
            lacking.append(why)
    for account, (seq, _) in sorted(have.items()):
        if account in heads and heads[account].seq < seq:
            notes.append(f"{account}'s record is behind the store (seq {heads[account].seq} "
                         f"< {seq}): a write's record was cut short")  # fmt: skip
        elif account not in heads and not os.path.lexists(journal.path_of(folder, account)):
            lacking.append(gone(account, seq, folder))
        elif account not in heads:
            notes.append(f"{account} has no record in {folder} (the store has {seq} writes "
                         "of theirs): it was removed")  # fmt: skip
    notes += _folder_notes(folder)
    return State(tuple(lacking), tuple(notes))


GONE = "records are gone"
"""Said of a writer the store names whose head and journal are both missing."""


def gone(account: str, seq: int, folder: Path) -> str:
    """A writer the store names with neither head nor journal in `folder`: the records were
    moved or emptied (`.spanlab` is the group's), so a rollback behind them cannot be told;
    refused like one, until they are put back or a lead forgets them (`labels restore`)."""
    return (
        f"{account}'s {GONE} from {folder} (the store has {seq} writes of theirs, "
        "no head and no journal): the records were moved or removed, so the store "
        "cannot be checked against them"
    )


def _folder_notes(folder: Path) -> list[str]:
    """The folder must be sticky and its parent's owner's (or root's): else a member could
    replace another's record."""
    st = nofollow.lstat(folder)
    if st is None:
        return []
    if not stat.S_ISDIR(st.st_mode):
        return [f"{folder} is a {nofollow.kind(st)}, not spanlab's records folder"]
    parent = os.lstat(folder.parent)
    out = []
    if st.st_uid not in (0, parent.st_uid):
        out.append(f"{folder} is owned by {name_of_user(st.st_uid)}, not by the owner of "
                   f"{folder.parent} ({name_of_user(parent.st_uid)}): its records could be "
                   "replaced")  # fmt: skip
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        out.append(f"{folder} is not sticky: a member could replace another's record "
                   f"(fix: chmod +t {folder})")  # fmt: skip
    return out


def _claim(folder: Path) -> None:
    """The owner of the store's folder (the lead who ran `init`) makes the records' folder
    at his first command of any kind, so a store made by an older spanlab does not get it
    from whichever member writes first (whose folder it would be, to empty at will)."""
    if os.path.lexists(folder):
        return
    with contextlib.suppress(OSError, SpanlabError):
        if os.lstat(folder.parent).st_uid == os.geteuid():
            make_folder(folder)


def make_folder(folder: Path) -> None:
    """The records' folder, made sticky (the group adds files, nobody replaces another's)."""
    if os.path.lexists(folder):
        return
    sharing.make_folder(folder)
    fd = nofollow.open_folder(folder)
    try:
        st = os.fstat(fd)
        if nofollow.ours(st):
            os.fchmod(fd, stat.S_IMODE(st.st_mode) | stat.S_ISVTX)
    finally:
        os.close(fd)


@dataclass
class Pending:
    """A write's record, journalled inside its transaction; its head is published after
    the COMMIT (so a head is never ahead of the store), under the journal's lock."""

    folder: Path
    head: Head
    lock: int

    def publish(self) -> None:
        """The head written once the store committed; a head that cannot be written leaves
        the record behind the store, which the next command says (never a failed write)."""
        try:
            sharing.write_owned(self.folder / self.head.account, self.head.text().encode())
        except (OSError, SpanlabError):
            pass
        finally:
            self.release()

    def release(self) -> None:
        if self.lock >= 0:
            os.close(self.lock)  # closing drops the flock
            self.lock = -1


def record(conn: sqlite3.Connection, path: str, rows: list[journal.Row]) -> Pending | None:
    """Inside a write, after its digests: the writer's next head, in the store and in the
    journal (appended, locked until `publish`). None: nothing written, or no file."""
    folder = folder_of(path)
    if folder is None or not rows:
        return None
    account = writer()
    seq, chain = store_heads(conn).get(account, (0, ""))
    top = conn.execute("SELECT id, digest FROM main.events ORDER BY id DESC LIMIT 1").fetchone()
    entry = journal.Entry(account, seq + 1, journal.stamp(), chain, tuple(rows))
    head = Head(account, entry.seq, entry.chain, entry.at, int(top[0]) if top else 0,
                str(top[1] or "") if top else "")  # fmt: skip
    conn.execute("INSERT OR REPLACE INTO main.row_digests VALUES (?, ?, ?, ?, ?)",
                 [TABLE, account, f"{head.seq}:{head.chain}", account, head.at])  # fmt: skip
    try:
        make_folder(folder)
        lock = journal.append(folder, entry)
    except OSError as exc:  # a full disk, a size limit, a folder we may not write
        full = exc.errno in sharing.FULL_ERRNOS
        raise StoreError(
            f"the label store cannot be written: its journal ({journal.path_of(folder, account)}"
            f"): {exc.strerror}; nothing was written",
            file=path,
            hint=refusal_hint(folder, full),
        ) from None
    return Pending(folder, head, lock)


@contextlib.contextmanager
def recorded(conn: sqlite3.Connection, path: str, rows: list[journal.Row]) -> Iterator[None]:
    """`record` around the COMMIT the body runs: the head published once it committed."""
    pending = record(conn, path, rows)
    try:
        yield
    except BaseException:
        if pending is not None:
            pending.release()
        raise
    if pending is not None:
        pending.publish()
