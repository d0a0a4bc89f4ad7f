"""Every SQLite file spanlab opens runs no code but spanlab's (§20, §21): the label store, the
runs index, the embedding caches, Chroma's database. One check for all of them, here below
the store and the evaluator so each opener asks the same question in the same words.

A file's schema is compared with what spanlab's own statements make (run once on an
in-memory database, so the list lives nowhere but in those statements); a file another
program lays out (Chroma's) may hold no trigger or view, as that program makes none. Reading
cannot fire a trigger, and `trusted_schema` off keeps a view or index from calling anything
unsafe, so readers go on with a warning while every write refuses, naming the objects and
the `sqlite3` command that removes them.
"""

from __future__ import annotations

import functools
import re
import shlex
import sqlite3
import urllib.parse
from collections.abc import Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

from labeler.core.display import shown
from labeler.core.errors import StoreError
from labeler.core.files import nofollow

Expected = Mapping[tuple[str, str], str]
"""(type, name) -> definition, as `objects` spells it."""

CODE = ("trigger", "view")
"""What a file another program lays out may not hold: the objects that run or hide code."""


class ForeignSchema(StoreError):
    """A database holds objects spanlab did not make: every write refuses while they stay."""


class Foreign(NamedTuple):
    """A schema object in a database that spanlab's statements did not make."""

    type: str
    """trigger, view, table or index."""
    name: str
    """Its name, as the file spells it (outside text: shown through the display rule)."""
    changed: bool
    """A name spanlab uses, with another definition (else an object spanlab has none of)."""


def harden(conn: sqlite3.Connection) -> None:
    """No function a schema names runs with more than a plain query's rights (SQLite's
    `trusted_schema`): set on every connection before it reads anything."""
    conn.execute("PRAGMA trusted_schema = OFF")


def objects(conn: sqlite3.Connection) -> dict[tuple[str, str], str]:
    """(type, name) -> definition, spaces, quotes and case aside: SQLite versions spell a
    renamed or altered table differently."""
    rows = conn.execute("SELECT type, name, sql FROM main.sqlite_master").fetchall()
    return {(str(t), str(n)): re.sub(r'[\s"`]+', " ", str(q or "")).strip().lower()
            for t, n, q in rows}  # fmt: skip


@functools.cache
def made_by(statements: tuple[str, ...]) -> dict[tuple[str, str], str]:
    """What these `CREATE` statements make, run once on an in-memory database."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
        return objects(conn)
    finally:
        conn.close()


def foreign_objects(conn: sqlite3.Connection, expected: Expected | None) -> tuple[Foreign, ...]:
    """The objects `expected` does not hold as the file holds them (one query); with None
    (a file another program lays out), every trigger and view."""
    found = sorted(objects(conn).items())
    if expected is None:
        return tuple(Foreign(kind, name, False) for (kind, name), _ in found if kind in CODE)
    return tuple(
        Foreign(kind, name, (kind, name) in expected)
        for (kind, name), sql in found
        if expected.get((kind, name)) != sql
    )


def describe(found: Sequence[Foreign]) -> str:
    """`trigger "x", table "queries" (changed)`: each object named, escaped."""
    return ", ".join(
        f'{f.type} "{shown(f.name, lines=False)}"' + (" (changed)" if f.changed else "")
        for f in found
    )


def drops(path: str, found: Sequence[Foreign]) -> str:
    """The `sqlite3 FILE 'DROP …'` that removes what spanlab did not make, escaped."""
    statements = "; ".join(
        f'DROP {f.type.upper()} "{f.name.replace(chr(34), chr(34) * 2)}"'
        for f in found
        if not f.changed
    )
    return shown(f"sqlite3 {shlex.quote(path)} {shlex.quote(statements)}", lines=False)


def refused(what: str, path: str, found: Sequence[Foreign], fix: str) -> ForeignSchema:
    """The error a write gives while `what` (the runs index, …) holds objects spanlab did not
    create; `fix` is said before the command that removes them."""
    return ForeignSchema(
        f"{what} holds {describe(found)}, which spanlab did not create and which could act "
        "inside its writes; nothing was written",
        file=path,
        hint=f"{fix}: {drops(path, found)}; reading commands still work"
        if not any(f.changed for f in found)
        else f"a table or index spanlab uses was redefined: delete {shown(path)} "
        "(spanlab makes it again) or restore it from a backup",
    )


def warning(what: str, path: str, found: Sequence[Foreign]) -> str:
    """What a reader says while it reads on (terminal-safe)."""
    return shown(
        f"warning: {path}: {what} holds {describe(found)}, which spanlab did not create; "
        "read on, nothing is written to it"
    )


def check(conn: sqlite3.Connection, what: str, path: str, expected: Expected | None,
          fix: str) -> None:  # fmt: skip
    """Refuse (a write's check, inside its transaction) when `conn` holds foreign objects."""
    found = foreign_objects(conn, expected)
    if found:
        raise refused(what, path, found, fix)


def check_file(path: Path, what: str, expected: Expected | None, fix: str) -> None:
    """`check` of the file at `path` as it is, opened read-only: what a command asks before
    it writes anything (an `eval` before its run, before Chroma opens its database)."""
    st = nofollow.lstat(path)
    if st is None or st.st_size == 0:
        return
    nofollow.require_database(path)
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    try:
        with closing(sqlite3.connect(uri, uri=True, timeout=5.0)) as conn:
            harden(conn)
            check(conn, what, str(path), expected, fix)
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            return  # not a database: its own opener says what it makes of it
        said = f"{what} cannot be checked for objects spanlab did not make: {exc}"
        raise StoreError(said, file=str(path), hint="nothing was written; try again") from None
