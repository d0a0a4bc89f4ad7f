"""Blind in every command (§20), with real accounts: bob labels blind; alice (who labels the
same queries) and carol (who joins later) learn nothing of his version from `labels
agreement`, `labels export` (every format that carries spans), `labels stats`, `show`,
`trec` and `diff` until the lead decides; the lead sees everything throughout.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import evaluator.runs.trec  # noqa: F401  # loaded before a child drops to an account
import labeler.core.agreement  # noqa: F401
from labeler.core import formats
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

VAULT = "The vault code is 4711 and only bob has marked it.\n"
"""A document only bob's version points into."""
STORE = ".spanlab/labels.db"
SECRETS = ("vault.md", "4711", "cross-reference", "BOBNOTE")
"""What alice and carol must not see before the lead decides: bob's document, quote,
pattern and notes."""
SPAN_FORMATS = [f for f in formats.FORMATS if f not in ("queries", "label-studio-min",
                                                         "label-studio-csv")]  # fmt: skip
"""Every format spanlab exports evidence in (not bare questions; two are import-only)."""


@pytest.fixture
def people() -> tuple[Account, ...]:
    """lead, alice, bob, carol."""
    lead, alice, bob = accounts()
    carol, _, _ = more_accounts()
    return lead, alice, bob, carol


@pytest.fixture
def blind(people: tuple[Account, ...]) -> Iterator[Path]:
    """A blind team project: bob has labelled q-0001 and q-0002, alice q-0001; q-0003 is
    the lead's own (decided); both annotators have q-0001 and q-0002 on their queues."""
    lead, alice, bob, carol = people
    with shared_folder(lead.group) as folder:
        fill(folder)
        (folder / "corpus" / "vault.md").write_text(VAULT, encoding="utf-8")
        questions = "How long do refunds take?\nWhat is the code?\nIs shipping free?\n"
        (folder / "q.txt").write_text(questions, encoding="utf-8")
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        spanlab(lead, folder, "init", "corpus")
        names = [p.name for p in (alice, bob, carol)]
        lead_holds(folder, lead, [lead.name], names, blind=True)  # the lead's, not the group's
        spanlab(lead, folder, "labels", "import", "q.txt")
        spanlab(lead, folder, "labels", "assign", alice.name, bob.name, "--copies", "2")
        in_child(bob, folder, lambda: bobs_version(folder, bob.name))
        in_child(alice, folder, lambda: alices_version(folder, alice.name))
        in_child(lead, folder, lambda: leads_own(folder, lead.name))
        yield folder


def _text(folder: Path, doc: str) -> str:
    return (folder / "corpus" / doc).read_text(encoding="utf-8")


def bobs_version(folder: Path, bob: str) -> dict[str, Any]:
    """bob, in his blind app: the vault sentence for q-0001 (cross-reference, a note) and
    for q-0002 (his lone version)."""
    store = Store.open(folder / STORE, create=False)
    store.view = bob
    vault = _text(folder, "vault.md")
    store.add_span("q-0001", Span.from_text(vault, "vault.md", 0, 22), vault, annotator=bob)
    store.update_query("q-0001", annotator=bob, boundary="cross-reference", notes="BOBNOTE")
    store.add_span("q-0002", Span.from_text(vault, "vault.md", 10, 30), vault, annotator=bob)
    return {}


def alices_version(folder: Path, alice: str) -> dict[str, Any]:
    store = Store.open(folder / STORE, create=False)
    store.view = alice
    a = _text(folder, "a.md")
    store.add_span("q-0001", Span.from_text(a, "a.md", 0, 21), a, annotator=alice)
    return {}


def leads_own(folder: Path, lead: str) -> dict[str, Any]:
    """q-0003 with the project's own evidence (as an import brings it): decided."""
    store = Store.open(folder / STORE, create=False)
    a = _text(folder, "a.md")
    store.add_span("q-0003", Span.from_text(a, "a.md", 22, 51), a, annotator=lead)
    return {}


def decide(folder: Path, lead: str) -> dict[str, Any]:
    """The lead keeps bob's versions of q-0001 and q-0002."""
    store = Store.open(folder / STORE, create=False)
    for qid in ("q-0001", "q-0002"):
        seen = store.query(qid).revision
        store.adjudicate(qid, "keep", keep=["spl19bob"], annotator=lead, seen=seen)
    return {}


def said(who: Account, folder: Path, *args: str) -> str:
    """Everything a command printed (stdout and stderr), asserting it ran."""
    done = as_user(who, folder, args)
    assert done.code == 0, f"{who.name}: spanlab {' '.join(args)}: {done.err}"
    return done.out + done.err


def leaks(text: str, secrets: tuple[str, ...] = SECRETS) -> list[str]:
    return [s for s in secrets if s in text]


WAITS = (
    "1 double-annotated quer(y/ies) wait for a decision, left out: blind (the project's `blind "
    "= true`) keeps another's version from you until a lead decides the query"
)
LEFT_OUT = (
    "warning: 2 quer(y/ies) wait for a decision and are not exported: blind (the project's "
    "`blind = true`) keeps another's version from you until a lead decides the query"
)


def test_agreement_shows_a_non_lead_only_how_many_wait(
    people: tuple[Account, ...], blind: Path
) -> None:
    lead, alice, _, carol = people
    for who in (alice, carol):
        done = as_user(who, blind, ["labels", "agreement"])
        assert (done.code, done.out, done.err.strip()) == (0, "", WAITS)
        data = json.loads(said(who, blind, "labels", "agreement", "--json"))
        assert (data["double"], data["withheld"], data["overall"]) == (0, 1, None)
        assert data["message"] == WAITS and data["queries"] == [] and data["by_document"] == {}
    shown = said(lead, blind, "labels", "agreement") + said(lead, blind, "labels", "agreement",
                                                             "--json")  # fmt: skip
    assert leaks(shown) == ["vault.md", "cross-reference"]  # no quote or note in agreement
    assert "pattern other / cross-reference" in shown and WAITS not in shown


@pytest.mark.parametrize("fmt", SPAN_FORMATS)
def test_a_non_leads_export_holds_decided_queries_only(
    people: tuple[Account, ...], blind: Path, fmt: str
) -> None:
    lead, alice, _, carol = people
    for who in (alice, carol):
        own = blind / who.name  # qrels writes queries.jsonl beside: each their own folder
        own.mkdir()
        os.chown(own, who.uid, who.group)
        out = own / f"{who.name}.{fmt}"
        done = as_user(who, blind, ["labels", "export", str(out), "--format", fmt])
        assert done.code == 0, done.err
        assert LEFT_OUT in done.err.splitlines()
        assert done.out.startswith("wrote 1 queries ")
        written = out.read_text(encoding="utf-8")
        if fmt == "squad":  # an article per document, with its text: vault.md's asks nothing
            [vault] = [a for a in json.loads(written)["data"] if a["title"] == "vault.md"]
            assert vault["paragraphs"][0]["qas"] == []
            written = written.replace(json.dumps(VAULT)[1:-1], "")
        # The spanlab format lists every document of the corpus: vault.md by name too.
        assert leaks(written + done.out + done.err, SECRETS[1:]) == []
    if fmt == "label-studio":  # the lead's holds each waiting version
        out = blind / "lead.json"
        spanlab(lead, blind, "labels", "export", str(out), "--format", fmt)
        assert "vault.md" in out.read_text(encoding="utf-8")


def test_the_spanlab_export_of_a_non_lead_holds_the_decided_query(
    people: tuple[Account, ...], blind: Path
) -> None:
    lead, alice, _, _ = people
    spanlab(alice, blind, "labels", "export", "alice.json")
    data = json.loads((blind / "alice.json").read_text(encoding="utf-8"))
    assert [q["id"] for q in data["queries"]] == ["q-0003"]
    spanlab(lead, blind, "labels", "export", "lead.json")
    data = json.loads((blind / "lead.json").read_text(encoding="utf-8"))
    assert [q["id"] for q in data["queries"]] == ["q-0002", "q-0003"]  # bob's lone version


def test_stats_show_nothing_of_bobs_version(people: tuple[Account, ...], blind: Path) -> None:
    _, alice, _, carol = people
    for who in (alice, carol):
        shown = said(who, blind, "labels", "stats") + said(who, blind, "labels", "stats", "--json")
        assert leaks(shown) == []
        assert json.loads(said(who, blind, "labels", "stats", "--json"))["spans"] == 1


def test_show_trec_and_diff_of_the_leads_run_hide_bobs_undecided_evidence(
    people: tuple[Account, ...], blind: Path
) -> None:
    lead, alice, _, carol = people
    spanlab(lead, blind, "eval", "c.toml")  # measures q-0002 (bob's lone version) and q-0003
    assert "vault.md" in said(lead, blind, "show", "latest", "q-0002")
    # The lead's run is his alone while q-0002 waits (§21, tests/cli/test_blind_files.py);
    # a run that holds it and is the group's (an older spanlab's, a copy) is still filtered.
    subprocess.run(["chmod", "-R", "g+rwX", str(blind / ".spanlab" / "runs")], check=True)
    for who in (alice, carol):
        done = as_user(who, blind, ["show", "latest", "q-0002"])
        assert done.code == 2 and leaks(done.out + done.err) == []
        assert done.err.strip() == (
            "error: q-0002: its versions wait for a decision; blind (the project's `blind "
            "= true`) keeps another's version from you until a lead decides the query"
        )
        assert "q-0003" in said(who, blind, "show", "latest", "q-0003")
        out = blind / f"trec-{who.name}"
        done = as_user(who, blind, ["trec", "latest", str(out)])
        assert done.code == 0, done.err
        assert "warning: 1 quer(y/ies) left out, their versions wait for a decision" in done.err
        lines = [line for f in sorted(out.iterdir()) for line in f.read_text().splitlines()]
        assert lines and not [line for line in lines if line.startswith("q-0002 ")]
    pair = ["diff", "latest", "latest", "--candidate", "c40", "--against-candidate", "c20"]
    assert "  q-0002 (other): hit in A → cut in B" in said(lead, blind, *pair).splitlines()
    for who in (alice, carol):
        done = as_user(who, blind, pair)
        assert done.code == 0 and "q-0002" not in done.out
        assert done.err.startswith("warning: 1 quer(y/ies) not listed, their versions wait ")
    lead_out = blind / "trec-lead"
    spanlab(lead, blind, "trec", "latest", str(lead_out))
    assert "q-0002 0 q-0002#0 1" in (lead_out / "spans.qrels").read_text()


def test_after_the_leads_decision_everyone_sees_it(
    people: tuple[Account, ...], blind: Path
) -> None:
    lead, alice, _, carol = people
    in_child(lead, blind, lambda: decide(blind, lead.name))
    for who in (alice, carol):
        shown = said(who, blind, "labels", "agreement", "--json")
        assert json.loads(shown)["withheld"] == 0 and "vault.md" in shown
        assert "pattern other / cross-reference" in said(who, blind, "labels", "agreement")
        own = blind / who.name  # the project folder is sticky: each exports in their own
        own.mkdir()
        os.chown(own, who.uid, who.group)
        done = as_user(who, blind, ["labels", "export", f"{who.name}/out.json"])
        assert done.code == 0 and "wait" not in done.err
        assert "4711" in (own / "out.json").read_text(encoding="utf-8")


def test_review_list_names_no_stale_span_of_bobs_undecided_version(
    people: tuple[Account, ...], blind: Path
) -> None:
    """vault.md changes: bob's two spans go stale; alice and carol are told only how many."""
    lead, alice, _, carol = people
    (blind / "corpus" / "vault.md").write_text("Moved. " + VAULT, encoding="utf-8")
    note = (
        "note: 2 span(s) of another's undecided version also wait for a lead's review: blind "
        "(the project's `blind = true`) keeps another's version from you until a lead "
        "decides the query\n"
    )
    for who in (alice, carol):
        done = as_user(who, blind, ["review", "--list"])
        assert (done.code, done.out, done.err) == (0, "no span waits for review\n", note)
        assert json.loads(as_user(who, blind, ["review", "--list", "--json"]).out)["spans"] == []
    listed = json.loads(said(lead, blind, "review", "--list", "--json"))["spans"]
    assert [(s["query"], s["doc"], s["quote"]) for s in listed] == [
        ("q-0001", "vault.md", VAULT[0:22]), ("q-0002", "vault.md", VAULT[10:30])]  # fmt: skip
