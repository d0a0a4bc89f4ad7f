"""The store runs no code but spanlab's (§20): a trigger, view, table or index its
migrations did not create is named, and every write refuses while it is there (the check
itself is `files.foreign_schema`'s, shared by every SQLite file spanlab opens).

A planted `AFTER INSERT ON queries` trigger would otherwise run inside a lead's own import,
with the lead's rights over every row. Reading cannot fire a trigger, so reading commands
go on, with a warning.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from labeler.core.errors import StoreError
from labeler.core.files.foreign_schema import describe as describe
from labeler.core.files.foreign_schema import drops
from labeler.core.store.schema import SCHEMA_VERSION, Foreign, foreign_objects, migrate


def refused(path: str, found: Sequence[Foreign]) -> StoreError:
    """The error every write gives while the store holds objects spanlab did not create."""
    changed = any(f.changed for f in found)
    fix = (
        "a table or index spanlab uses was redefined: restore labels.db from a backup"
        if changed
        else f"a lead checks `spanlab labels audit`, then removes it: {drops(path, found)}"
    )
    return StoreError(
        f"the label store holds {describe(found)}, which spanlab did not create and which "
        "could act inside its writes; nothing was written",
        file=path,
        hint=f"{fix}; reading commands still work",
    )


def migrate_checked(conn: sqlite3.Connection, path: str) -> None:
    """Migrate, unless objects spanlab did not create are there: a migration writes, and a
    planted trigger would run inside it."""
    conn.execute("BEGIN")  # one snapshot: another process may be migrating meanwhile
    try:
        found = int(conn.execute("PRAGMA user_version").fetchone()[0])
        foreign = foreign_objects(conn, found) if found < SCHEMA_VERSION else ()
    finally:
        conn.execute("COMMIT")
    if foreign:
        conn.close()
        raise refused(path, foreign)
    migrate(conn, path=path)
