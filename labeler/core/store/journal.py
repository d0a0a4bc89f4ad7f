"""Each account's writes, kept where only it can change them (§21):
`labels.db.heads/<account>.journal`, one JSON line a write, holding every row the write
left (or removed), so `labels restore` can bring back a write a rollback took away.

Rows are noted by the same TEMP triggers the digests use (plus `doc_texts`), so a new kind
of write is journalled without remembering it. Each entry chains onto the one before
(sha256), and the head file holds the last link: a journal cut or edited shows at restore.
The journal is the group's to read (a lead replays it), as the store itself is.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from labeler.core.errors import StoreError
from labeler.core.files import nofollow
from labeler.core.progress import Advance
from labeler.core.store.digests import DIRTY, KEYS

SUFFIX = ".journal"
"""A journal's name: the account's, then this."""
TEXTS = ("doc_texts", ("doc_hash",))
"""Document texts are not digested, but a span needs its text: journalled too."""
MODE = 0o640
"""The owner writes; the group reads (a lead replays it); others nothing."""

Row = tuple[str, str, dict[str, Any] | None]
"""(table, key as JSON, the row's columns after the write, or None: removed)."""


def key_columns(table: str) -> tuple[str, ...]:
    if table == "events":
        return ("id",)
    return TEXTS[1] if table == TEXTS[0] else KEYS[table]


def watch_texts(conn: sqlite3.Connection) -> None:
    """TEMP triggers noting `doc_texts` rows a write touches (beside `digests.watch`)."""
    table, (col,) = TEXTS
    for op, refs in (("INSERT", ("NEW",)), ("UPDATE", ("OLD", "NEW")), ("DELETE", ("OLD",))):
        notes = "".join(f"INSERT INTO {DIRTY} VALUES ('{table}', json_array({r}.\"{col}\"));"
                        for r in refs)  # fmt: skip
        conn.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS spanlab_{table}_{op.lower()} "
                     f"AFTER {op} ON main.{table} BEGIN {notes} END")  # fmt: skip


def _plain(value: Any) -> Any:
    return {"blob": bytes(value).hex()} if isinstance(value, bytes | memoryview) else value


def collect(conn: sqlite3.Connection, advance: Advance | None = None) -> list[Row]:
    """Every row the open write touched, as it is now (before `digests.refresh` clears the
    notes); `advance`d by one a row."""
    dirty = conn.execute(f"SELECT DISTINCT tbl, key FROM temp.{DIRTY} ORDER BY rowid").fetchall()
    out: list[Row] = []
    for table, key in dirty:
        if advance is not None:
            advance(1)
        cols = key_columns(str(table))
        where = " AND ".join(f'"{c}" = ?' for c in cols)
        cur = conn.execute(f"SELECT * FROM main.{table} WHERE {where}", json.loads(key))
        row = cur.fetchone()
        names = [d[0] for d in cur.description]
        got = None if row is None else {
            n: _plain(v) for n, v in zip(names, row, strict=True) if not (
                table == "events" and n == "digest")}  # fmt: skip
        out.append((str(table), str(key), got))
    return out


def stamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def link(previous: str, body: str) -> str:
    return hashlib.sha256(f"{previous}\n{hashlib.sha256(body.encode()).hexdigest()}".encode()
                          ).hexdigest()  # fmt: skip


@dataclass(frozen=True)
class Entry:
    """One write of one account."""

    account: str
    seq: int
    at: str
    previous: str
    """The chain before this write."""
    rows: tuple[Row, ...]

    def body(self) -> str:
        return json.dumps([self.account, self.seq, self.at, list(self.rows)],
                          ensure_ascii=False, sort_keys=True, separators=(",", ":"))  # fmt: skip

    @property
    def chain(self) -> str:
        return link(self.previous, self.body())

    def line(self) -> bytes:
        data = {"account": self.account, "seq": self.seq, "at": self.at,
                "previous": self.previous, "chain": self.chain,
                "rows": list(self.rows)}  # fmt: skip
        return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def path_of(folder: Path, account: str) -> Path:
    return folder / f"{account}{SUFFIX}"


def append(folder: Path, entry: Entry) -> int:
    """Append `entry` to its account's journal (made 0640 when missing), under an exclusive
    lock; the descriptor is returned still locked (the head is written under it)."""
    path = path_of(folder, entry.account)
    try:
        fd = nofollow.open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL, MODE)
        os.fchmod(fd, MODE)
    except FileExistsError:
        fd = nofollow.open_regular(path, os.O_RDWR | os.O_APPEND)
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_nlink != 1 or st.st_mode & 0o022:
            raise StoreError(f"is not your own journal (mode {stat.S_IMODE(st.st_mode):04o}, "
                             "or not yours): nothing was written", file=str(path),
                             hint="remove it, or ask its owner why it is there")  # fmt: skip
        fcntl.flock(fd, fcntl.LOCK_EX)
        _append(fd, entry.line())
    except BaseException:
        os.close(fd)
        raise
    return fd


def _append(fd: int, data: bytes) -> None:
    """Write `data` at the end, on a line of its own; a write the disk refuses halfway is
    cut back off, so the journal stays whole lines."""
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":  # an append killed halfway
        data = b"\n" + data
    try:
        while data:
            data = data[os.write(fd, data) :]
    except BaseException:
        os.ftruncate(fd, size)
        raise


def _entry(data: Any, account: str, where: str) -> Entry:
    if not isinstance(data, dict) or data.get("account") != account:
        raise StoreError("is not an entry of this account's journal", file=where)
    rows = []
    for raw in data["rows"]:
        table, key, row = raw
        if table not in (*KEYS, "events", TEXTS[0]) or not isinstance(key, str) or not (
                row is None or isinstance(row, dict)):  # fmt: skip
            raise StoreError(f"names a table spanlab does not journal ({table!r})", file=where)
        rows.append((str(table), key, row))
    entry = Entry(account, int(data["seq"]), str(data["at"]), str(data["previous"]), tuple(rows))
    if entry.chain != data["chain"]:
        raise StoreError("its chain does not hold (the entry was edited)", file=where)
    return entry


def read(folder: Path, account: str, owner: int) -> dict[int, Entry]:
    """{seq: entry} of an account's journal (a later entry of one seq wins: the earlier
    one's write rolled back); a file that is not its owner's own is refused."""
    path = path_of(folder, account)
    fd = nofollow.open_regular(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if st.st_uid != owner or st.st_mode & 0o022:
            raise StoreError(f"is not {account}'s own journal: nothing restored", file=str(path))
        lines = handle.read().splitlines()
    out: dict[int, Entry] = {}
    for n, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
        except ValueError:  # an append cut off (killed): its write never committed
            continue
        try:
            entry = _entry(data, account, f"{path}:{n}")
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"line {n} is not an entry spanlab wrote ({exc})",
                             file=str(path)) from None  # fmt: skip
        out[entry.seq] = entry
    return out


def plain_value(value: Any) -> Any:
    """A journalled value back as SQLite takes it."""
    if isinstance(value, dict) and set(value) == {"blob"}:
        return bytes.fromhex(str(value["blob"]))
    return value


def columns(conn: sqlite3.Connection, table: str) -> Sequence[str]:
    return [str(r[1]) for r in conn.execute(f"PRAGMA main.table_info({table})")]
