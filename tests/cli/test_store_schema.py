"""The store runs no code but spanlab's, and changes made around spanlab are named (§20).

A trigger, view, table or index spanlab's migrations did not create makes every write
refuse, naming it and the fix; reading commands read on with a warning. `labels audit`
names rows changed, inserted or deleted with sqlite3, and events cut from the chain.
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
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.errors import StoreError
from labeler.core.store import Store
from tests.cli.accounts import (
    Account,
    accounts,
    as_user,
    in_child,
    lead_holds,
    more_accounts,
    shared_folder,
)
from tests.conftest import table_dump, write_corpus

TEXT = "Refunds take 30 days.\nShipping is free over 50 EUR.\n"
STORE = ".spanlab/labels.db"
STEAL = (
    "CREATE TRIGGER steal AFTER INSERT ON queries BEGIN "
    "UPDATE queries SET status = 'reviewed' WHERE id = 'q-0001'; "
    "DELETE FROM spans WHERE query_id = 'q-0001'; "
    "UPDATE queries SET annotator = 'spl19mallory' WHERE id = NEW.id; END"
)


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": TEXT})
    (tmp_path / "q.txt").write_text("How long do refunds take?\nIs shipping free?\n")
    (tmp_path / "more.txt").write_text("Who pays returns?\n", encoding="utf-8")
    assert run("init", "corpus").exit_code == 0
    assert run("labels", "import", "q.txt").exit_code == 0
    return tmp_path


def plant(project: Path, sql: str) -> None:
    conn = sqlite3.connect(project / STORE)
    conn.execute(sql)
    conn.commit()
    conn.close()


CASES = [
    ("trigger", STEAL, 'trigger "steal"', 'DROP TRIGGER "steal"'),
    ("view", "CREATE VIEW peek AS SELECT text FROM queries", 'view "peek"', 'DROP VIEW "peek"'),
    ("table", "CREATE TABLE stash (x)", 'table "stash"', 'DROP TABLE "stash"'),
    ("index", "CREATE INDEX by_text ON queries(text)", 'index "by_text"', 'DROP INDEX "by_text"'),
]


@pytest.mark.parametrize(("kind", "sql", "named", "drop"), CASES, ids=[c[0] for c in CASES])
def test_an_object_spanlab_did_not_create_stops_every_write_and_is_named(
    project: Path, kind: str, sql: str, named: str, drop: str
) -> None:
    plant(project, sql)
    store = Store.open(project / STORE, create=False)
    before = table_dump(store)
    done = run("labels", "import", "more.txt")
    assert done.exit_code == 2
    assert done.stderr.splitlines()[-2:] == [
        f"error: {project / STORE}: the label store holds {named}, which spanlab did not "
        "create and which could act inside its writes; nothing was written",
        f"hint: a lead checks `spanlab labels audit`, then removes it: sqlite3 "
        f"{project / STORE} '{drop}'; reading commands still work",
    ]
    assert table_dump(store) == before
    stats = run("labels", "stats")
    assert stats.exit_code == 0 and stats.stdout.startswith("queries 2")
    assert f"warning: {project / STORE}: the label store holds {named}" in stats.stderr
    audit = run("labels", "audit")
    assert audit.exit_code == 1
    assert audit.stdout.splitlines()[0] == f"schema: {named}, not made by spanlab"
    plant(project, drop)
    assert run("labels", "import", "more.txt").exit_code == 0


def test_a_clean_store_audits_clean(project: Path) -> None:
    done = run("labels", "audit")
    assert done.exit_code == 0, done.stdout
    lines = done.stdout.splitlines()
    assert lines[0] == "clean: every row and event matches what spanlab wrote"
    assert lines[1].startswith("labels.db: owner ")
    assert "audit      clean" in run("corpus", "status").stdout


def logged(project: Path, n: int) -> None:
    """`n` edits through spanlab, each an event (an import of questions logs none)."""
    store = Store.open(project / STORE, create=False)
    for i in range(n):
        store.update_query("q-0001", annotator="lead", notes=f"note {i}")
    store.close()


def test_audit_names_an_update_a_deleted_event_and_an_insert_made_with_sqlite3(
    project: Path,
) -> None:
    logged(project, 2)
    subprocess.run(
        ["sqlite3", str(project / STORE),
         "UPDATE queries SET text = 'changed' WHERE id = 'q-0002'; DELETE FROM events WHERE "
         "id = 1; INSERT INTO retired_ids VALUES ('q-0009', 'x', 'now')"],
        check=True,
    )  # fmt: skip
    done = run("labels", "audit")
    assert done.exit_code == 1
    lines = done.stdout.splitlines()
    assert lines[0] == "events 1: deleted outside spanlab"
    assert lines[1].startswith(
        "queries q-0002: changed outside spanlab (last written through spanlab by "
    )
    assert lines[2] == "retired_ids q-0009: inserted outside spanlab"
    assert len([line for line in lines if "outside spanlab" in line]) == 3
    status = run("corpus", "status").stdout
    # status counts (the event cut, the row added); the edit in place takes the full audit
    assert "audit      2 change(s) made outside spanlab: run `spanlab labels audit`" in status


def test_an_event_edited_and_one_inserted_break_the_chain_there(project: Path) -> None:
    logged(project, 3)
    plant(project, "UPDATE events SET annotator = 'someone' WHERE id = 1")
    plant(project, "INSERT INTO events(at, annotator, kind, payload) VALUES ('t', 'm', 'k', '{}')")
    lines = run("labels", "audit").stdout.splitlines()
    assert lines[:2] == ["events 1: changed outside spanlab", "events 4: inserted outside spanlab"]
    logged(project, 1)  # spanlab's next event chains on: only the two are named
    plant(project, "DELETE FROM events WHERE id = 5")
    lines = run("labels", "audit").stdout.splitlines()
    assert lines[:3] == [
        "events 1: changed outside spanlab",
        "events 4: inserted outside spanlab",
        "events 5: deleted outside spanlab",
    ]


def test_spanlabs_own_writes_keep_the_audit_clean(project: Path) -> None:
    store = Store.open(project / STORE, create=False)
    store.update_query("q-0001", annotator="lead", notes="checked")
    store.delete_query("q-0002", annotator="lead")
    store.add_query("Another?", annotator="lead")
    assert store.audit().clean, store.audit().findings


# -- with real accounts -------------------------------------------------------------------

pytestmark_root = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root")


@pytest.fixture
def shared() -> Iterator[tuple[Path, Account, Account]]:
    lead = accounts()[0]
    mallory = more_accounts()[1]
    with shared_folder(lead.group) as folder:
        write_corpus(folder / "corpus", {"a.md": TEXT})
        (folder / "q.txt").write_text("How long do refunds take?\n", encoding="utf-8")
        (folder / "more.txt").write_text("Who pays returns?\n", encoding="utf-8")
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        yield folder, lead, mallory


@pytestmark_root
def test_malloryss_trigger_never_fires_in_the_leads_import(
    shared: tuple[Path, Account, Account],
) -> None:
    """Issue 28: mallory's trigger in labels.db made the lead's own import mark another's
    query reviewed, delete its evidence and credit the new query to her."""
    folder, lead, mallory = shared
    assert as_user(lead, folder, ["init", "corpus"]).code == 0
    assert as_user(lead, folder, ["labels", "import", "q.txt"]).code == 0

    def plant_as_mallory() -> dict[str, Any]:
        done = subprocess.run(["sqlite3", STORE, STEAL], capture_output=True, text=True)
        return {"code": done.returncode, "err": done.stderr}

    assert in_child(mallory, folder, plant_as_mallory) == {"code": 0, "err": ""}
    before = table_dump(Store.open_for_reading(folder / STORE))
    done = as_user(lead, folder, ["labels", "import", "more.txt"])
    assert done.code == 2
    assert 'the label store holds trigger "steal", which spanlab did not create' in done.err
    assert "DROP TRIGGER" in done.err and "Traceback" not in done.err
    assert done.out == ""
    after = table_dump(Store.open_for_reading(folder / STORE))
    assert after == before
    assert after["queries"][0][6] == "draft"  # q-0001 not marked reviewed
    audit = as_user(lead, folder, ["labels", "audit"])
    assert audit.code == 1
    assert 'schema: trigger "steal", not made by spanlab' in audit.out


@pytestmark_root
def test_a_store_a_member_put_in_place_of_the_leads_is_named_by_the_audit(
    shared: tuple[Path, Account, Account],
) -> None:
    """A rollback (found trying the issue as a team): mallory renames her copy of an
    older labels.db over the lead's; its digests agree with themselves, its owner does not."""
    folder, lead, mallory = shared
    lead_holds(folder, lead, [lead.name], [mallory.name])
    assert as_user(lead, folder, ["init", "corpus"]).code == 0
    assert as_user(lead, folder, ["labels", "import", "q.txt"]).code == 0
    assert as_user(lead, folder, ["labels", "audit"]).code == 0

    def roll_back() -> dict[str, Any]:
        shutil.copyfile(STORE, ".spanlab/older.db")
        os.replace(".spanlab/older.db", STORE)
        return {"code": 0}

    assert in_child(mallory, folder, roll_back) == {"code": 0}
    audit = as_user(lead, folder, ["labels", "audit"])
    assert audit.code == 1, audit
    assert (
        f"file: labels.db is owned by {mallory.name}, who is not a lead: a member's copy may "
        "have been put in its place (a rollback); compare with a backup"
    ) in audit.out.splitlines()


# -- rows written by hand -----------------------------------------------------------------

CRAFTED = [
    ("slices", "slices = 'not json'", "not a JSON list of names"),
    ("boundary", "boundary = 'sideways'", "'sideways' is not one of condition-consequence"),
    ("status", "status = x'00'", "\"b'\\\\x00'\" is not one of draft, labelled, reviewed"),
]
COMMANDS = [
    ("labels", "stats"),
    ("labels", "agreement"),
    ("labels", "export", "out.json"),
    ("labels", "export", "out.jsonl", "--format", "doccano"),
    ("labels", "assign", "alice", "bob"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[1:3]) for c in COMMANDS])
@pytest.mark.parametrize(("column", "crafted", "why"), CRAFTED, ids=[c[0] for c in CRAFTED])
def test_a_crafted_row_is_refused_by_table_row_and_column(
    project: Path, command: tuple[str, ...], column: str, crafted: str, why: str
) -> None:
    plant(project, f"UPDATE queries SET {crafted} WHERE id = 'q-0001'")
    done = run(*command)
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: table queries, row q-0001, column {column}: {why}")
    assert isinstance(done.exception, SystemExit)  # a refusal, not a traceback
    assert not (project / "out.json").exists() and not (project / "out.jsonl").exists()


def test_a_huge_question_is_cut_in_sql_and_refused_on_export(project: Path) -> None:
    """A 1 MB question (300 MB in the issue) is never read whole: lists cut it at the
    limit, and an export refuses it rather than writing it cut."""
    plant(project, "UPDATE queries SET text = printf('%.*c', 1000000, 'x') WHERE id = 'q-0001'")
    assert run("labels", "stats").exit_code == 0
    store = Store.open(project / STORE, create=False)
    assert len(store.query_rows()[0].text) == 10_001
    done = run("labels", "export", "out.json")
    assert done.exit_code == 2
    assert done.stderr.startswith(
        "error: table queries, row q-0001, column text: over the limit of 10,000 characters"
    )


def test_a_span_whose_end_is_text_is_refused_naming_it(project: Path) -> None:
    plant(project, "INSERT INTO spans(query_id, doc, start, \"end\", quote, prefix, suffix, "
                   "doc_hash, created) VALUES ('q-0001', 'a.md', 0, 'five', 'Refun', '', '', "
                   "'h', 'now')")  # fmt: skip
    done = run("labels", "export", "out.json")
    assert done.exit_code == 2
    assert done.stderr.startswith("error: table spans, row 1, column end: holds a str, not int")


def test_show_reads_questions_through_the_same_check(project: Path) -> None:
    """`show` reads every question (Store.queries): a crafted row is the same refusal."""
    plant(project, "UPDATE queries SET slices = '{' WHERE id = 'q-0002'")
    with pytest.raises(StoreError) as caught:
        Store.open_for_reading(project / STORE).queries()
    assert (
        caught.value.message == "table queries, row q-0002, column slices: not a JSON list of names"
    )
