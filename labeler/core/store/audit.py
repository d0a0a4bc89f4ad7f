"""`spanlab labels audit` (§20): every kept row and every event recomputed against the
digests spanlab wrote beside them, so a change made with `sqlite3` names its rows.

Who made such a change the store cannot say (the change is by definition not spanlab's);
the files say when, and each row's last write through spanlab says by whom it was before.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from labeler.core.files.access import name_of_user
from labeler.core.store.digests import EVENT_FIELDS, HEAD, KEYS, canonical, event_digest, row_digest


@dataclass(frozen=True)
class Finding:
    """A row or event that does not match what spanlab wrote."""

    table: str
    """The table (`events` for the log)."""
    key: str
    """The row's key as JSON (`["q-0001"]`), or the event ids concerned."""
    what: str
    """changed, inserted or deleted outside spanlab."""
    before: str = ""
    """Its last write through spanlab: `by lead at 2026-…` ('' when none)."""


def rows(conn: sqlite3.Connection) -> list[Finding]:
    """Kept rows whose content no longer matches, that appeared or that went away."""
    found: list[Finding] = []
    for table in KEYS:
        kept = {str(k): (str(d), f"by {b} at {str(a)[:19]}") for k, d, b, a in conn.execute(
            "SELECT key, digest, by, at FROM main.row_digests WHERE tbl = ?", [table])}  # fmt: skip
        cur = conn.execute(f"SELECT * FROM main.{table}")
        names = [d[0] for d in cur.description]
        at = [names.index(c) for c in KEYS[table]]
        for row in cur:
            key = canonical(row[i] for i in at)
            digest, before = kept.pop(key, ("", ""))
            if digest != row_digest(table, tuple(row)):
                found.append(Finding(table, key, "changed" if digest else "inserted", before))
        found += [Finding(table, k, "deleted", before) for k, (_, before) in sorted(kept.items())]
    return found


def events(conn: sqlite3.Connection) -> list[Finding]:
    """Events changed, inserted or deleted around spanlab: the chain breaks there."""
    found: list[Finding] = []
    previous, last = "", 0
    fields = ", ".join(f'"{f}"' for f in EVENT_FIELDS)
    for row in conn.execute(f"SELECT {fields}, digest FROM main.events ORDER BY id"):
        event_id, digest = int(row[0]), row[-1]
        if event_id != last + 1:
            found.append(Finding("events", _ids(last + 1, event_id - 1), "deleted"))
        elif digest is None:
            found.append(Finding("events", f"[{event_id}]", "inserted"))
        elif digest != event_digest(previous, tuple(row[:-1])):
            found.append(Finding("events", f"[{event_id}]", "changed"))
        previous, last = str(digest or ""), event_id
    head = conn.execute(
        "SELECT digest FROM main.row_digests WHERE tbl = ? AND key = ?", HEAD
    ).fetchone()
    end = int(str(head[0]).split(":")[0]) if head else 0
    if end > last:
        found.append(Finding("events", _ids(last + 1, end), "deleted"))
    return found


def _ids(first: int, last: int) -> str:
    return f"[{first}]" if first == last else f"[{first}..{last}]"


def files(path: str) -> list[str]:
    """When the store's files last changed, and whose they are: what the files can tell."""
    out = []
    for name in (path, f"{path}-wal"):
        try:
            st = os.lstat(name)
        except OSError:
            continue
        when = datetime.fromtimestamp(st.st_mtime, UTC).strftime("%Y-%m-%d %H:%M:%S")
        out.append(f"{Path(name).name}: owner {name_of_user(st.st_uid)}, "
                   f"mode {st.st_mode & 0o7777:04o}, last changed {when} UTC")  # fmt: skip
    return out


def last_write(conn: sqlite3.Connection) -> str:
    """spanlab's own last write: who and when (the newest digest)."""
    row = conn.execute("SELECT by, at FROM main.row_digests ORDER BY at DESC LIMIT 1").fetchone()
    return f"{row[0]} at {str(row[1])[:19].replace('T', ' ')} UTC" if row else "none"


@dataclass(frozen=True)
class Report:
    """What `labels audit` says: foreign objects, rows and events out of line, the files."""

    foreign: str
    """The schema objects spanlab did not create, named ('' when none)."""
    findings: tuple[Finding, ...]
    """Rows and events that do not match spanlab's digests."""
    files: tuple[str, ...]
    """The store's files: owner, mode, when last changed."""
    last_write: str
    """spanlab's own last write: who and when."""
    replaced: str = ""
    """Why the store file itself looks replaced (owned by no lead), '' when it does not."""
    heads: tuple[str, ...] = ()
    """Writes the store lacks of its writers' heads (§21: a rollback), each a sentence."""

    @property
    def clean(self) -> bool:
        return not self.foreign and not self.findings and not self.replaced and not self.heads


def report(
    conn: sqlite3.Connection, path: str, foreign: str, leads: Collection[str] = ()
) -> Report:
    """The whole audit: every kept row and every event read once; with `leads` (a team's
    roles that count), a store file owned by none of them (nor root) is named too."""
    found = (*events(conn), *rows(conn))
    return Report(foreign, found, tuple(files(path)), last_write(conn), replaced(path, leads))


def replaced(path: str, leads: Collection[str]) -> str:
    """A lead makes the store (init); a member who renames her own copy over it (a
    rollback: digests and all) leaves it hers, the one trace the file keeps (§20)."""
    try:
        owner = name_of_user(os.lstat(path).st_uid) if path and leads else None
    except OSError:
        return ""
    if owner is None or owner in leads or owner == name_of_user(0):
        return ""
    return (f"{Path(path).name} is owned by {owner}, who is not a lead: a member's copy may "
            "have been put in its place (a rollback); compare with a backup")  # fmt: skip


def quick(conn: sqlite3.Connection) -> int:
    """Rows and events out of line by count alone (a few aggregate queries, for `corpus
    status`): catches rows inserted or deleted around spanlab, not a row edited in place."""
    off = 0
    for table in KEYS:
        rows = conn.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0]
        kept = conn.execute("SELECT count(*) FROM main.row_digests WHERE tbl = ?", [table])
        off += abs(int(rows) - int(kept.fetchone()[0]))
    n, top, unlinked = conn.execute(
        "SELECT count(*), coalesce(max(id), 0), count(*) - count(digest) FROM main.events"
    ).fetchone()
    head = conn.execute("SELECT digest FROM main.row_digests WHERE tbl = ? AND key = ?", HEAD)
    end = head.fetchone()
    last = int(str(end[0]).split(":")[0]) if end else 0
    return off + (int(top) - int(n)) + int(unlinked) + max(0, last - int(top))
