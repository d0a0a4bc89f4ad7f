"""Every byte accounted for (design §21), with real accounts: mallory saves a copy of the
store, the lead imports two queries and alice labels, then mallory puts the copy back, by a
rename or by writing its bytes into the same file. The lead's next command of any kind
names the writes the store lacks, every write refuses, and `labels restore` brings back
each of them from the writers' own journals.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labeler.core.store import Store
from labeler.core.values import Span
from tests.cli.accounts import (
    Account,
    accounts,
    as_user,
    in_child,
    lead_holds,
    more_accounts,
    shared_folder,
)
from tests.cli.test_shared_project import embedded, fill, spanlab, warmed

__all__ = ["embedded", "warmed"]  # the module's autouse fixtures, used by name

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

STORE = ".spanlab/labels.db"
TEXT = "Refunds take 30 days. Exchanges take 60 days, with the receipt.\n"


@pytest.fixture
def people() -> tuple[Account, Account, Account]:
    """lead, alice, mallory."""
    lead, alice, _ = accounts()
    _, mallory, _ = more_accounts()
    return lead, alice, mallory


@pytest.fixture
def saved(people: tuple[Account, Account, Account]) -> Iterator[Path]:
    """A team project the lead set up as the README says, with one query; mallory keeps a
    copy of its store (in her own folder); then the lead imports two queries and alice
    labels q-0001 and q-0002."""
    lead, alice, mallory = people
    with shared_folder(lead.group) as folder:
        fill(folder)
        (folder / "corpus" / "a.md").write_text(TEXT, encoding="utf-8")
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        spanlab(lead, folder, "init", "corpus")
        lead_holds(folder, lead, [lead.name], [alice.name, mallory.name])
        spanlab(lead, folder, "labels", "import", "q.txt")
        copied_then_moved_on(folder, lead, mallory)
        spanlab(lead, folder, "labels", "assign", alice.name)
        in_child(alice, folder, lambda: label(folder, alice.name))
        yield folder


def copied_then_moved_on(folder: Path, lead: Account, mallory: Account) -> None:
    """mallory copies the store into a folder of her own; then the lead imports two
    queries, so her copy lacks the lead's last write."""
    hers = folder / "mallory"
    hers.mkdir()
    os.chown(hers, mallory.uid, mallory.gid)
    in_child(mallory, folder, lambda: copy_store(folder))
    (folder / "more.txt").write_text("Exchanges?\nReceipt?\n", encoding="utf-8")
    spanlab(lead, folder, "labels", "import", "more.txt")


def copy_store(folder: Path) -> dict[str, Any]:
    """mallory: the store's bytes, whole (its WAL folded in first), into her folder."""
    conn = sqlite3.connect(folder / STORE)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    shutil.copyfile(folder / STORE, folder / "mallory" / "copy.db")
    return {}


def label(folder: Path, alice: str) -> dict[str, Any]:
    store = Store.open(folder / STORE, create=False)
    store.view = alice
    store.add_span("q-0001", Span.from_text(TEXT, "a.md", 0, 21), TEXT, annotator=alice)
    store.add_span("q-0002", Span.from_text(TEXT, "a.md", 22, 44), TEXT, annotator=alice)
    return {}


def roll_back(folder: Path, how: str) -> dict[str, Any]:
    """mallory puts her copy back: renamed over the store, or its bytes written into it."""
    db = folder / STORE
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    if how == "rename":
        shutil.copyfile(folder / "mallory" / "copy.db", folder / ".spanlab" / ".old")
        os.replace(folder / ".spanlab" / ".old", db)
    else:  # cat copy > labels.db
        with open(db, "r+b") as out:
            out.write((folder / "mallory" / "copy.db").read_bytes())
            out.truncate()
    return {}


def counts(folder: Path) -> tuple[int, int, int]:
    """(queries, version spans, events) in the store, read as root without spanlab."""
    conn = sqlite3.connect(f"file:{folder / STORE}?mode=ro", uri=True)
    try:
        got = conn.execute(
            "SELECT (SELECT count(*) FROM queries), (SELECT count(*) FROM spans "
            "WHERE version != ''), (SELECT count(*) FROM events)"
        ).fetchone()
        return int(got[0]), int(got[1]), int(got[2])
    finally:
        conn.close()


@pytest.mark.parametrize("how", ["rename", "in-place"])
def test_a_rollback_is_named_by_the_leads_next_command_and_restored(
    people: tuple[Account, Account, Account], saved: Path, how: str
) -> None:
    lead, alice, mallory = people
    before = counts(saved)
    assert before[:2] == (3, 2)
    in_child(mallory, saved, lambda: roll_back(saved, how))
    assert counts(saved)[:2] == (1, 0)
    lacks = [f"the store lacks {alice.name}'s last 2 writes (seq 1–2, ",
             f"the store lacks {lead.name}'s last 2 writes (seq 3–4, "]  # fmt: skip
    for args in (["corpus", "status"], ["labels", "stats"], ["labels", "agreement"]):
        done = as_user(lead, saved, args)
        assert done.code == 0, done.err
        warned = [line for line in done.err.splitlines() if "the store lacks" in line]
        assert [w.split("warning: ")[1][: len(x)] for w, x in zip(warned, lacks, strict=True)
                ] == lacks, done.err  # fmt: skip
        assert "rolled back; every write refuses until `spanlab labels restore`" in done.err
    export = as_user(lead, saved, ["labels", "export", "frozen.json"])
    assert export.code == 2 and "rolled back; nothing was written" in export.err
    assert not (saved / "frozen.json").exists()
    evaluated = as_user(lead, saved, ["eval", "c.toml"])
    assert evaluated.code == 2 and "the store lacks" in evaluated.err
    (saved / "late.txt").write_text("Late?\n", encoding="utf-8")
    write = as_user(alice, saved, ["labels", "stats"])
    assert "the store lacks" in write.err
    refused = as_user(lead, saved, ["labels", "import", "late.txt"])
    assert refused.code == 2 and "the store lacks" in refused.err
    assert counts(saved)[:2] == (1, 0)
    dry = as_user(lead, saved, ["labels", "restore", "--dry-run"])
    assert (
        dry.code == 0
        and dry.out.splitlines()[0] == f"would restore 2 writes of {alice.name} (seq 1–2)"
    )
    assert counts(saved)[:2] == (1, 0)
    done = as_user(lead, saved, ["labels", "restore"])
    assert done.code == 0, done.err
    assert done.out.splitlines()[:3] == [
        f"restored 2 writes of {alice.name} (seq 1–2)",
        f"restored 2 writes of {lead.name} (seq 3–4)",
        "4 writes, rows put back or removed: assignments 3, doc_texts 1, events 2, meta 1, "
        "queries 4, spans 2, versions 2",
    ]
    after = counts(saved)
    assert after == (before[0], before[1], before[2] + 1)  # and a store-restored event
    clean = as_user(lead, saved, ["labels", "audit"])
    assert "the store lacks" not in clean.err + clean.out and "heads:" not in clean.out
    # Every row is spanlab's again; a renamed copy stays mallory's file, which audit says.
    owned = f"labels.db is owned by {mallory.name}, who is not a lead"
    assert (clean.code, owned in clean.out) == ((1, True) if how == "rename" else (0, False))
    spanlab(lead, saved, "labels", "import", "late.txt")
    assert counts(saved)[0] == 4
