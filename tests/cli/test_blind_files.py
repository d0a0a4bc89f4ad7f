"""Blind in files (design §21), with real accounts: while bob's versions wait, what the lead's
eval and export write in the project is the lead's alone, so alice and carol read nothing
of them there; once the lead decides, what he writes is the group's again. And a decision
stands: carol, added later, labels a decided query, is told, and the lead's export keeps it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from labeler.core.store import Store
from labeler.core.values import Span
from tests.cli.accounts import Account, as_user, in_child
from tests.cli.test_blind_everywhere import (
    SECRETS,
    STORE,
    blind,
    decide,
    leaks,
    people,
    said,
)
from tests.cli.test_shared_project import embedded, spanlab, warmed

__all__ = ["blind", "embedded", "people", "warmed"]  # fixtures, used by name

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")


def mode(path: Path) -> str:
    return f"{stat.S_IMODE(path.stat().st_mode):04o}"


def reads(who: Account, folder: Path, path: Path) -> dict[str, Any]:
    """What `who` can read of `path` (its text, or the error's name)."""

    def read() -> dict[str, Any]:
        try:
            return {"text": path.read_text(encoding="utf-8")}
        except OSError as exc:
            return {"error": type(exc).__name__}

    return in_child(who, folder, read)


def run_files(run: Path) -> list[Path]:
    return sorted(p for p in run.iterdir() if p.is_file())


def test_the_leads_run_and_export_are_his_alone_while_bobs_versions_wait(
    people: tuple[Account, ...], blind: Path
) -> None:
    lead, alice, _, carol = people
    done = as_user(lead, blind, ["eval", "c.toml"])
    assert done.code == 0, done.err
    (run,) = [p for p in (blind / ".spanlab" / "runs").iterdir() if p.is_dir()]
    assert f"note: {run} is yours alone (mode 2700)" in done.err.replace("\n", " ")
    assert mode(run) == "2700"
    names = [p.name for p in run_files(run)]
    assert {"run.json", "report.md", "chunks.tsv"} <= set(names)
    assert "vault.md" in (run / "run.json").read_text(encoding="utf-8")  # bob's lone version
    exported = as_user(lead, blind, ["labels", "export", "frozen.json"])
    assert exported.code == 0, exported.err
    assert "frozen.json is yours alone (mode 0600)" in exported.err
    assert "wait for adjudication and are not exported (q-0001; adjudicate them" in exported.err
    assert mode(blind / "frozen.json") == "0600"
    assert "4711" in (blind / "frozen.json").read_text(encoding="utf-8")
    trec = as_user(lead, blind, ["trec", "latest", "trec-lead"])
    assert trec.code == 0 and "trec-lead is yours alone (mode 0600)" in trec.err
    qrels = sorted((blind / "trec-lead").iterdir())
    assert qrels and {mode(p) for p in qrels} == {"0600"}
    pair = ["diff", "latest", "latest", "--candidate", "c40", "--against-candidate", "c20"]
    diffed = as_user(lead, blind, [*pair, "--markdown", "diff.md"])
    assert diffed.code == 0 and mode(blind / "diff.md") == "0600", diffed.err
    for who in (alice, carol):
        for path in [blind / "frozen.json", blind / "diff.md", *qrels, *(run / n for n in names)]:
            assert reads(who, blind, path) == {"error": "PermissionError"}, (who.name, path)
        shown = as_user(who, blind, ["show", "latest", "q-0003"])
        assert shown.code == 2 and "Traceback" not in shown.err
        assert "no run you may read: 1 run(s) here are their writer's alone" in shown.err
        assert leaks(shown.out + shown.err) == []
    in_child(lead, blind, lambda: decide(blind, lead.name))
    spanlab(lead, blind, "eval", "c.toml")
    (shared,) = [p for p in (blind / ".spanlab" / "runs").iterdir() if p != run and p.is_dir()]
    assert mode(shared) == "2750"
    again = as_user(lead, blind, ["labels", "export", "decided.json"])
    assert again.code == 0 and "yours alone" not in again.err
    assert mode(blind / "decided.json") == "0660"
    for who in (alice, carol):  # decided: open to everyone
        assert "4711" in str(reads(who, blind, blind / "decided.json"))
        assert "vault.md" in str(reads(who, blind, shared / "run.json"))


def carol_labels(folder: Path, carol: str) -> dict[str, Any]:
    """carol, added later, draws her own span on q-0001 in her app: what she is told."""
    store = Store.open(folder / STORE, create=False)
    store.view = carol
    text = (folder / "corpus" / "a.md").read_text(encoding="utf-8")
    store.add_span("q-0001", Span.from_text(text, "a.md", 0, 10), text, annotator=carol)
    return {"told": store.decision_on("q-0001"), "waiting": store.waiting()}


def test_a_decided_query_stays_decided_when_a_later_member_labels_it(
    people: tuple[Account, ...], blind: Path
) -> None:
    lead, alice, _, carol = people
    in_child(lead, blind, lambda: decide(blind, lead.name))
    spanlab(lead, blind, "labels", "export", "before.json")
    got = in_child(carol, blind, lambda: carol_labels(blind, carol.name))
    assert got["waiting"] == []
    told = str(got["told"])
    assert told.startswith(f"q-0001 is decided ({lead.name} kept spl19bob's version, ")
    assert told.endswith("UTC): your version is kept beside the decision and does not reopen "
                         "it; ask a lead to send it back if it should")  # fmt: skip
    done = as_user(lead, blind, ["labels", "export", "after.json"])
    assert done.code == 0 and "wait" not in done.err, done.err
    assert done.out.startswith("wrote 3 queries ")
    data = json.loads((blind / "after.json").read_text(encoding="utf-8"))
    q1 = next(q for q in data["queries"] if q["id"] == "q-0001")
    assert [(s["doc"], s["start"], s["end"]) for s in q1["evidence"]] == [("vault.md", 0, 22)]
    assert q1["status"] == "reviewed"
    before = json.loads((blind / "before.json").read_text(encoding="utf-8"))
    assert before["queries"] == data["queries"]
    status = json.loads(said(lead, blind, "labels", "stats", "--json"))
    assert status["spans"] >= 1
    # alice, who annotated blind, learns nothing of carol's new version in her export
    own = blind / alice.name
    own.mkdir()
    os.chown(own, alice.uid, alice.group)
    spanlab(alice, blind, "labels", "export", f"{alice.name}/a.json")
    hers = json.loads((own / "a.json").read_text(encoding="utf-8"))
    assert [q["id"] for q in hers["queries"]] == ["q-0001", "q-0002", "q-0003"]
    assert leaks(json.dumps(hers), SECRETS[1:2]) == ["4711"]  # the decided evidence
    assert "spl19carol" not in json.dumps(hers)
