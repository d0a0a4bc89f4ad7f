"""Only the store and its migrations write the store's tables (design §1), checked by grep.

Every module of labeler/ and evaluator/ outside `labeler/core/store/` and
`labeler/core/store/schema.py` is searched for SQL that writes one of the store's tables (named
from the schema itself, so a table added later is covered) and for sqlite-utils access to
them. Other databases (the embedding cache, the runs index) keep their own tables.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labeler.core.store import Store

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("labeler", "evaluator")
OWNERS = ("labeler/core/store/", "labeler/core/store/schema.py")
"""The only code allowed to write the store's tables."""


def store_tables() -> list[str]:
    store = Store.memory()
    try:
        rows = store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return sorted(r[0] for r in rows)
    finally:
        store.close()


def writes(tables: list[str]) -> re.Pattern[str]:
    """SQL writing one of `tables`, or sqlite-utils reaching one (`.table("spans")`)."""
    names = "|".join(map(re.escape, tables))
    table = rf"\\?[\"`\[]?(?:{names})\\?[\"`\]]?(?!\w)"
    sql = (
        r"\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?"
        rf"|DELETE\s+FROM)\s+{table}"
    )
    utils = rf"(?:\.table\(|\bdb\[)\s*[\"'](?:{names})[\"']"
    return re.compile(f"{sql}|{utils}", re.IGNORECASE)


PATTERN = writes(store_tables())


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def owned(path: Path) -> bool:
    relative = path.relative_to(ROOT).as_posix()
    return any(relative.startswith(owner) for owner in OWNERS)


def hits(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(ROOT).as_posix()
    return [
        f"{where}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
        for m in PATTERN.finditer(text)
    ]


def test_the_schema_names_the_tables_the_scan_guards() -> None:
    assert store_tables() == [
        "adjudications", "assignments", "bound_documents", "doc_texts", "events", "meta",
        "queries", "retired_ids", "review_decisions", "row_digests", "spans", "sqlite_sequence",
        "versions",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "code",
    [
        'db.execute("DELETE FROM spans WHERE id = ?", [span_id])',
        '"UPDATE spans SET doc_hash = ? WHERE doc = ? AND doc_hash != ?"',
        "'UPDATE spans SET start = ?, \"end\" = ?, quote = ?, '",
        '"INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)"',
        '"INSERT INTO \\"review_decisions\\" (span_id) VALUES (?)"',
        "insert or ignore into doc_texts(doc_hash, text) values (?, ?)",
        'db.table("spans").update(span_id, fields)',
        'table = db.table("review_decisions")',
        'db["queries"].insert(row)',
    ],
)
def test_the_scan_finds_a_write(code: str) -> None:
    assert PATTERN.search(code)


@pytest.mark.parametrize(
    "code",
    [
        'conn.execute("SELECT id, text FROM queries")',
        '"INSERT OR IGNORE INTO embeddings VALUES (?, ?, ?, ?)"',
        'conn.executemany("DELETE FROM runs WHERE id = ?", rows)',
        'raw["queries"]',
        "query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE",
        '"UPDATE spans_archive SET x = 1"',
    ],
)
def test_the_scan_leaves_reads_and_other_databases_alone(code: str) -> None:
    assert not PATTERN.search(code)


def test_the_store_is_where_the_writes_are() -> None:
    # Not vacuous: the owners' own writes are found by the same scan.
    assert sum(len(hits(p)) for p in sources() if owned(p)) >= 10


def test_no_module_outside_the_store_writes_its_tables() -> None:
    found = [hit for p in sources() if not owned(p) for hit in hits(p)]
    assert found == [], "write through a Store method instead:\n" + "\n".join(found)
