"""Every byte accounted for (design §21): a store rolled back, by a rename or by its old bytes
written in place, is named by the next open and refuses writes; restore brings back every
write from the writers' journals; the check costs milliseconds."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from labeler.core.errors import StoreError
from labeler.core.store import Store
from labeler.core.store.restore import forget_gone, restore
from labeler.core.values import Span

TEXT = "Refunds: within 30 days. Exchanges: within 60 days."


def _store(tmp_path: Path) -> tuple[Store, Path]:
    db = tmp_path / ".spanlab" / "labels.db"
    return Store.open(db), db


def _snapshot(db: Path, to: Path) -> None:
    store = Store.open(db, create=False)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    shutil.copyfile(db, to)


def _ids(db: Path) -> list[str]:
    store = Store.open(db, create=False)
    try:
        return [q.id for q in store.queries()]
    finally:
        store.close()


def _later_writes(db: Path) -> None:
    store = Store.open(db, create=False)
    q = store.add_query("Exchanges?", annotator="ann")
    store.add_span(q.id, Span("p.md", 25, 34, TEXT[25:34]), TEXT, annotator="ann")
    store.add_query("Late?", annotator="ann")
    store.close()


@pytest.mark.parametrize("how", ["rename", "in-place"])
def test_a_rollback_is_named_and_restore_brings_every_write_back(tmp_path: Path, how: str) -> None:
    store, db = _store(tmp_path)
    store.add_query("Refunds?", annotator="ann")
    store.close()
    _snapshot(db, tmp_path / "copy.db")
    _later_writes(db)
    assert _ids(db) == ["q-0001", "q-0002", "q-0003"]
    _snapshot(db, tmp_path / "full.db")
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    if how == "rename":
        shutil.copyfile(tmp_path / "copy.db", tmp_path / "old.db")
        os.replace(tmp_path / "old.db", db)
    else:
        db.write_bytes((tmp_path / "copy.db").read_bytes())
    old = Store.open(db, create=False)
    assert [q.id for q in old.queries()] == ["q-0001"]
    (said,) = old.heads.lacking
    assert said.startswith("the store lacks root's last 3 writes (seq 2–4, ")
    with pytest.raises(StoreError, match="rolled back; nothing was written"):
        old.add_query("Lost?", annotator="ann")
    assert old.cannot_write() is not None
    done = restore(old)
    assert done.count == 3
    assert done.writes == {"root": (2, 4)}
    assert done.rows["queries"] == 3  # two made, one rewritten by the span's revision
    assert [q.id for q in old.queries()] == ["q-0001", "q-0002", "q-0003"]
    assert [(s.doc, s.start, s.end) for s in old.query("q-0002").evidence] == [("p.md", 25, 34)]
    assert old.heads.lacking == ()
    assert old.audit().clean
    old.add_query("After?", annotator="ann")
    assert old.heads.lacking == () and _ids(db)[-1] == "q-0004"
    old.close()


def test_a_restore_refuses_a_journal_cut_short(tmp_path: Path) -> None:
    store, db = _store(tmp_path)
    store.add_query("Refunds?", annotator="ann")
    store.close()
    _snapshot(db, tmp_path / "copy.db")
    _later_writes(db)
    journal = db.parent / "labels.db.heads" / "root.journal"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:-1]))
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    db.write_bytes((tmp_path / "copy.db").read_bytes())
    old = Store.open(db, create=False)
    with pytest.raises(StoreError, match="journal lacks write 4: nothing restored"):
        restore(old)
    assert [q.id for q in old.queries()] == ["q-0001"]
    old.close()


def test_the_check_costs_milliseconds(tmp_path: Path) -> None:
    store, db = _store(tmp_path)
    for n in range(40):
        store.add_query(f"Q{n}?", annotator="ann")
    store.close()
    best = min(_timed_open(db) for _ in range(5))
    assert best < 0.05


def _timed_open(db: Path) -> float:
    from labeler.core.store import heads

    store = Store.open(db, create=False)
    started = time.perf_counter()
    state = heads.check(store.conn, str(db))
    took = time.perf_counter() - started
    store.close()
    assert state.lacking == ()
    return took


def test_an_append_cut_off_halfway_is_passed_over(tmp_path: Path) -> None:
    store, db = _store(tmp_path)
    store.add_query("Refunds?", annotator="ann")
    store.close()
    _snapshot(db, tmp_path / "copy.db")
    journal = db.parent / "labels.db.heads" / "root.journal"
    with journal.open("ab") as out:
        out.write(b'{"account":"root","seq":2,"at"')  # a process killed mid-append
    _later_writes(db)
    assert len(journal.read_bytes().splitlines()) == 5
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    db.write_bytes((tmp_path / "copy.db").read_bytes())
    old = Store.open(db, create=False)
    assert restore(old).count == 3
    assert [q.id for q in old.queries()] == ["q-0001", "q-0002", "q-0003"]
    old.close()


def test_a_record_of_another_account_is_ignored_and_named(tmp_path: Path) -> None:
    store, db = _store(tmp_path)
    store.add_query("Refunds?", annotator="ann")
    planted = db.parent / "labels.db.heads" / "nobody"
    planted.write_text('{"seq": 99, "chain": "x", "at": "2026-01-01T00:00:00Z"}\n')
    planted.chmod(0o644)
    store.close()
    again = Store.open(db, create=False)
    assert again.heads.lacking == ()
    assert [n for n in again.heads.notes if "nobody" in n] == [
        f"{planted} (owner root, mode 0644) is not nobody's own record: ignored"
    ]
    again.close()


def test_records_moved_away_refuse_until_forgotten_then_journal_anew(tmp_path: Path) -> None:
    store, db = _store(tmp_path)
    store.add_query("Refunds?", annotator="ann")
    store.close()
    _snapshot(db, tmp_path / "copy.db")
    (db.parent / "labels.db.heads").rename(tmp_path / "older-records")  # journals begin later
    moved = Store.open(db, create=False)
    (said,) = moved.heads.lacking  # gone records are named, and refuse, until forgotten
    assert said.startswith("root's records are gone from ")
    assert forget_gone(moved) == ["root"] and moved.heads.lacking == ()
    moved.close()
    _later_writes(db)
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    fresh = tmp_path / "fresh" / ".spanlab" / "labels.db"
    Store.open(fresh).close()
    shutil.copyfile(fresh, db)  # an empty store in its place: q-0001 is gone for good
    old = Store.open(db, create=False)
    (said,) = old.heads.lacking  # the records begun anew with the forgetting write
    assert said.startswith("the store lacks root's last 4 writes (seq 1–4, ")
    assert restore(old).writes == {"root": (1, 4)}
    assert [q.id for q in old.queries()] == ["q-0002", "q-0003"]  # q-0001 is gone for good
    old.close()


def test_the_owner_of_the_stores_folder_makes_the_records_folder_at_any_command(
    tmp_path: Path,
) -> None:
    store, db = _store(tmp_path)
    store.close()
    records = db.parent / "labels.db.heads"
    shutil.rmtree(records, ignore_errors=True)  # a store an older spanlab made
    Store.open_for_reading(db).close()
    made = records.stat()
    assert records.is_dir() and made.st_mode & 0o1000 and made.st_uid == os.geteuid()
