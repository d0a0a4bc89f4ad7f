"""Authority (§20) with real accounts: mallory's `sed` on the group's spanlab.toml makes her
no lead and leaves blind on; a team file she owns, or one the group may write or replace,
counts for nobody and says the fix; alice's `init` over the project and her delete of the
lead's query are refused; the lead's delete, undone, brings its assignments back.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.project import config
from labeler.core.store import Store
from labeler.core.team import roles as team
from labeler.core.values import Query
from labeler.tui.label.editor import Editor
from tests.cli.accounts import (
    GROUP,
    Account,
    accounts,
    as_user,
    in_child,
    lead_holds,
    modes,
    more_accounts,
    shared_folder,
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

TEXT = "Refunds take 30 days.\nShipping is free over 50 EUR.\n"
STORE = ".spanlab/labels.db"
QUESTIONS = "".join(f"Question number {n}?\n" for n in range(1, 11))


@pytest.fixture
def people() -> tuple[Account, Account, Account, Account]:
    lead, alice, bob = accounts()
    return lead, alice, bob, more_accounts()[1]


@pytest.fixture
def project(people: tuple[Account, ...]) -> Iterator[Path]:
    """The lead's project: 10 questions imported, all on alice's queue; spanlab.toml is the
    group's (0660), as init writes it in a setgid folder."""
    lead, alice = people[0], people[1]
    with shared_folder(lead.group) as folder:
        (folder / "corpus").mkdir()
        (folder / "corpus" / "a.md").write_text(TEXT, encoding="utf-8")
        (folder / "q.txt").write_text(QUESTIONS, encoding="utf-8")
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        ok(lead, folder, "init", "corpus")
        ok(lead, folder, "labels", "import", "q.txt")
        ok(lead, folder, "labels", "assign", alice.name)
        yield folder


def ok(who: Account, folder: Path, *args: str) -> str:
    done = as_user(who, folder, args)
    assert done.code == 0, f"{who.name}: spanlab {' '.join(args)}: {done.err}"
    return done.out


def roles(people: tuple[Account, ...], folder: Path) -> Path:
    lead, alice, bob, mallory = people
    return lead_holds(folder, lead, [lead.name], [alice.name, bob.name, mallory.name], blind=True)


def sed_herself_lead(who: Account, folder: Path) -> None:
    """`who` edits the group-writable spanlab.toml: blind off, herself the only lead."""

    def edit() -> dict[str, Any]:
        path = folder / "spanlab.toml"
        text = path.read_text(encoding="utf-8").replace("blind = true\n", "")
        path.write_text(f"blind = false\n{text}\n[team]\nleads = {json.dumps([who.name])}\n"
                        'annotators = []\n', encoding="utf-8")  # fmt: skip
        return {}

    in_child(who, folder, edit)


def seen_by(who: Account, folder: Path) -> dict[str, Any]:
    """What `who`'s spanlab makes of the roles: blind, lead, where from, why not."""

    def look() -> dict[str, Any]:
        proj = config.load(folder)
        me = team.member(proj.team, None, distrust=proj.distrust)
        why = proj.distrust.why if proj.distrust else None
        return {"blind": proj.blind, "lead": me.lead, "from": str(proj.authority), "why": why}

    return in_child(who, folder, look)


def test_mallorys_sed_makes_her_no_lead_and_leaves_blind_on(
    people: tuple[Account, ...], project: Path
) -> None:
    mallory = people[3]
    held = roles(people, project)
    assert modes(project, ["spanlab.toml", "spanlab.team.toml"]) == {
        "spanlab.toml": f"0660 {people[0].name}:{GROUP}",
        "spanlab.team.toml": f"0644 {people[0].name}:{GROUP}",
    }
    sed_herself_lead(mallory, project)
    assert seen_by(mallory, project) == {"blind": True, "lead": False, "from": str(held),
                                         "why": None}  # fmt: skip
    refused = f"{mallory.name} is an annotator; {{}} is for leads (spanlab.team.toml line 4: " \
              f"leads = [\"{people[0].name}\"])"  # fmt: skip
    for args, act in ((("labels", "assign", mallory.name), "assigning queries"),
                      (("labels", "import", "q.txt"), "importing labels"),
                      (("adjudicate",), "adjudicating")):  # fmt: skip
        done = as_user(mallory, project, args)
        assert done.code == 2, (args, done)
        assert refused.format(act) in done.err, (args, done.err)
    assert seen_by(people[0], project)["lead"] is True


def test_the_lead_hears_of_claims_mallory_wrote_into_spanlab_toml(
    people: tuple[Account, ...], project: Path
) -> None:
    """Ignored is not silent: the lead's next command says spanlab.toml claims roles."""
    lead, mallory = people[0], people[3]
    roles(people, project)
    assert "warning" not in as_user(lead, project, ("labels", "stats")).err
    sed_herself_lead(mallory, project)
    done = as_user(lead, project, ("labels", "stats"))
    assert done.code == 0, done
    assert done.err.splitlines()[0] == (
        "warning: spanlab.toml sets team, blind, ignored: roles and blind count only from "
        "spanlab.team.toml; a lead removes them from spanlab.toml"
    )


def test_a_claim_only_in_the_groups_spanlab_toml_is_refused_with_the_fix(
    people: tuple[Account, ...], project: Path
) -> None:
    lead, mallory = people[0], people[3]
    sed_herself_lead(mallory, project)
    toml = project / "spanlab.toml"
    seen = seen_by(mallory, project)
    assert seen["blind"] is True and seen["lead"] is False
    done = as_user(mallory, project, ("labels", "assign", mallory.name))
    assert done.code == 2
    assert (f"[team] and blind do not count: {toml} (owner {lead.name}, group {GROUP}, mode "
            f"0660) is writable by its group or others; assigning queries needs roles that "
            "count") in done.err  # fmt: skip
    assert (f"hint: a lead who owns {project} moves the [team] table and the blind line out of "
            f"{toml} into {project}/spanlab.team.toml (a new file of their own), then: chmod 644 "
            f"{project}/spanlab.team.toml && chmod +t {project}") in done.err  # fmt: skip
    assert as_user(lead, project, ("labels", "assign", lead.name)).code == 2  # the lead too
    assert as_user(mallory, project, ("labels", "stats")).code == 0  # no role needed


def _mallorys(path: Path, mallory: Account) -> str:
    os.chown(path, mallory.uid, mallory.group)
    return "belongs to someone other than the owner of"


def _group_writable(path: Path, mallory: Account) -> str:
    path.chmod(0o664)
    return "is writable by its group or others"


def _not_sticky(path: Path, mallory: Account) -> str:
    path.parent.chmod(0o2775)
    return "lets its group replace the files in it (group- or other-writable, not sticky)"


def _a_link(path: Path, mallory: Account) -> str:
    fake = path.parent / "fake.toml"
    path.rename(fake)
    path.symlink_to(fake)
    os.lchown(path, mallory.uid, mallory.group)
    return f"{path} is a symbolic link (owner {mallory.name})"


@pytest.mark.parametrize("spoil", [_mallorys, _group_writable, _not_sticky, _a_link])
def test_a_team_file_the_group_could_have_written_counts_for_nobody(
    people: tuple[Account, ...], project: Path, spoil: Any
) -> None:
    lead, mallory = people[0], people[3]
    said = spoil(roles(people, project), mallory)
    for who in (lead, mallory):
        seen = seen_by(who, project)
        assert seen["lead"] is False and seen["blind"] is True and said in seen["why"], seen
    done = as_user(lead, project, ("labels", "assign", lead.name))
    assert done.code == 2 and said in done.err and "hint: " in done.err, done.err


def test_alices_init_over_the_project_is_refused_and_changes_nothing(
    people: tuple[Account, ...], project: Path
) -> None:
    lead, alice = people[0], people[1]
    roles(people, project)
    before = (project / "spanlab.toml").read_bytes()
    done = as_user(alice, project, ("init", "corpus", "--db", ".spanlab/alice.db"))
    assert done.code == 2
    assert (f"{alice.name} is an annotator; running init over an existing project is for "
            "leads") in done.err  # fmt: skip
    assert (project / "spanlab.toml").read_bytes() == before
    assert not (project / ".spanlab" / "alice.db").exists()
    ok(lead, project, "init", "corpus", "--db", ".spanlab/lead2.db")
    for db in (STORE, ".spanlab/lead2.db"):
        store = Store.open(project / db, create=False)
        rows = store.conn.execute("SELECT annotator, payload FROM events WHERE kind = "
                                  "'project-init'").fetchall()  # fmt: skip
        store.close()
        assert [r[0] for r in rows] == [lead.name], db
        assert json.loads(rows[0][1])["was_store"] == str(project / STORE)


def edit_as(who: Account, folder: Path, work: Any) -> dict[str, Any]:
    """`work(editor)` in a child as `who`, the store handed its member as `spanlab label` does."""

    def run() -> dict[str, Any]:
        proj = config.load(folder)
        me = team.member(proj.team, None, distrust=proj.distrust)
        store = Store.open(proj.db, create=False)
        store.member = me
        editor = Editor(store, Corpus.read(folder / "corpus"), me.name)
        try:
            return {"done": work(editor, store)}
        except Exception as exc:
            return {"error": str(exc)}

    return in_child(who, folder, run)


def assigned(folder: Path) -> int:
    store = Store.open(folder / STORE, create=False)
    try:
        return len(store.queue(accounts()[1].name))
    finally:
        store.close()


def test_alice_may_not_delete_or_reword_the_leads_query(
    people: tuple[Account, ...], project: Path
) -> None:
    alice = people[1]
    roles(people, project)

    def delete(editor: Editor, store: Store) -> str:
        return editor.delete_query("q-0001", seen=store.query("q-0001")).id

    def reword(editor: Editor, store: Store) -> str:
        return editor.update_query("q-0002", text="Something else?").text

    done = edit_as(alice, project, delete)
    assert done["error"].startswith(f"{alice.name} is an annotator; deleting another's query "
                                    "is for leads")  # fmt: skip
    done = edit_as(alice, project, reword)
    assert "rewording another's query is for leads" in done["error"]
    store = Store.open(project / STORE, create=False)
    assert [q.id for q in store.queries()][:2] == ["q-0001", "q-0002"]
    assert store.query("q-0002").text == "Question number 2?"
    assert assigned(project) == 10
    store.close()


def test_the_leads_delete_undone_brings_back_its_assignments_and_both_are_events(
    people: tuple[Account, ...], project: Path
) -> None:
    lead = people[0]
    roles(people, project)

    def delete(editor: Editor, store: Store) -> int:
        editor.delete_query("q-0001", seen=store.query("q-0001"))
        return len(store.queue(people[1].name))

    def delete_and_undo(editor: Editor, store: Store) -> list[int]:
        between = delete(editor, store)
        editor.undo()
        return [between, len(store.queue(people[1].name))]

    assert edit_as(lead, project, delete_and_undo) == {"done": [9, 10]}
    assert assigned(project) == 10
    store = Store.open(project / STORE, create=False)
    sql = ("SELECT kind, annotator, payload FROM events WHERE query_id = 'q-0001' "
           "AND kind LIKE 'query-%' ORDER BY id")  # fmt: skip
    rows = store.conn.execute(sql).fetchall()
    store.close()
    kinds = [(r[0], r[1]) for r in rows]
    assert kinds[-2:] == [("query-deleted", lead.name), ("query-restored", lead.name)]
    assert len(json.loads(rows[-2][2])["assigned"]) == 1
    assert json.loads(rows[-1][2])["assignments"] == 1


def test_undoing_anothers_delete_is_a_leads(people: tuple[Account, ...], project: Path) -> None:
    """No team file: alice deletes the lead's query (nobody is a lead); once the lead's file
    is there, her undo of it is refused and the query stays deleted."""
    alice = people[1]

    def held_query(editor: Editor, store: Store) -> dict[str, Any]:
        q = editor.delete_query("q-0003", seen=store.query("q-0003"))
        return {"id": q.id, "annotator": q.annotator}

    assert edit_as(alice, project, held_query)["done"]["id"] == "q-0003"
    roles(people, project)

    def put_back(editor: Editor, store: Store) -> str:
        old = Query("q-0003", "Question number 3?", annotator=people[0].name, stored=True)
        return store.restore_query(old, {}, annotator=editor.annotator).id

    done = edit_as(alice, project, put_back)
    assert "putting back another's deleted query is for leads" in done["error"]
