"""`spanlab labels assign | agreement` and the blind-mode setting (§3, §11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labeler.core.errors import ConfigError
from labeler.core.project import config
from labeler.core.store import Store
from labeler.core.values import Span
from tests.cli.test_cli import DB, initialised, run, workdir

__all__ = ["workdir"]  # the fixture, used by name


def test_assign_round_robin_prints_each_queue(workdir: Path) -> None:
    initialised(workdir)
    done = run("labels", "assign", "alice", "bob", "--copies", "2", "--annotator", "lead")
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "alice: 3 queries\nbob: 3 queries\n"
    assert "assigned 6 new" in done.stderr
    store = Store.open(DB, create=False)
    assert store.queue("bob") == ["q-0001", "q-0002", "q-0003"]


def test_assign_of_an_empty_slice_exits_2_and_writes_nothing(workdir: Path) -> None:
    initialised(workdir)
    done = run("labels", "assign", "alice", "--slice", "nope")
    assert done.exit_code == 2
    assert "no queries in slice 'nope'" in done.stderr
    assert Store.open(DB, create=False).assigned() == {}


def test_blind_is_a_project_setting(tmp_path: Path) -> None:
    (tmp_path / "spanlab.toml").write_text('corpus = "c"\nblind = true\n', encoding="utf-8")
    assert config.load(tmp_path).blind is True
    (tmp_path / "spanlab.toml").write_text('blind = "yes"\n', encoding="utf-8")
    try:
        config.load(tmp_path)
    except ConfigError as exc:
        assert exc.message == "'blind' must be true or false"
    else:
        raise AssertionError("a string for blind was accepted")


def double_annotate(workdir: Path) -> None:
    """alice and bob each draw q-0001's evidence blind, half overlapping; q-0002 agrees."""
    text = (workdir / "corpus" / "a.md").read_text(encoding="utf-8")
    for who, (start, end) in (("alice", (10, 40)), ("bob", (25, 55))):
        store = Store.open(DB, create=False)
        store.view = who
        span = Span.from_text(text, "a.md", start, end)
        store.add_span("q-0001", span, text, annotator=who)
        store.update_query("q-0002", annotator=who, abstain=True)
        store.close()


def test_agreement_by_pair_with_counts(workdir: Path) -> None:
    initialised(workdir)
    double_annotate(workdir)
    done = run("labels", "agreement")
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "2 double-annotated queries"
    assert "F1 0.750  exact 0.500  abstain 1.000" in lines[1]
    assert "(2 queries, 2 pairs)" in lines[1]
    assert any(line.startswith("  alice+bob") for line in lines)
    assert "  q-0001  alice+bob  F1 0.500" in lines


def test_agreement_json(workdir: Path) -> None:
    initialised(workdir)
    double_annotate(workdir)
    done = run("labels", "agreement", "--json")
    data = json.loads(done.stdout)
    assert data["double"] == 2
    assert data["by_pair"]["alice+bob"]["queries"] == 2
    assert data["queries"][0]["query_id"] == "q-0001"


def test_agreement_without_double_annotation_says_so(workdir: Path) -> None:
    initialised(workdir)
    done = run("labels", "agreement")
    assert done.exit_code == 0
    assert done.stdout == ""
    assert "no double-annotated queries" in done.stderr
    data = json.loads(run("labels", "agreement", "--json").stdout)
    assert (data["double"], data["overall"]) == (0, None)


def ls_task(annotations: list[tuple[object, int, int, str]]) -> dict[str, object]:
    def result(start: int, end: int, label: str) -> dict[str, object]:
        value = {"start": start, "end": end, "labels": [label]}
        return {"from_name": "l", "to_name": "text", "type": "labels", "value": value}

    return {
        "data": {"doc": "a.md", "question": "How long do refunds take?"},
        "annotations": [
            {"completed_by": who, "result": [result(s, e, label)]}
            for who, s, e, label in annotations
        ],
    }


def test_label_studio_import_keeps_every_annotator_then_adjudicate_and_export(
    workdir: Path,
) -> None:
    assert run("init", "corpus").exit_code == 0
    task = ls_task([(1, 10, 40, "evidence"), (2, 20, 40, "evidence"), (2, 0, 9, "distractor")])
    (workdir / "ls.json").write_text(json.dumps([task]), encoding="utf-8")
    done = run("labels", "import", "ls.json", "--format", "label-studio", "--label", "evidence")
    assert done.exit_code == 0, done.stderr
    assert "span labels seen: distractor, evidence; counted as evidence: evidence" in done.stderr
    assert "2 annotator version(s) kept (user-1, user-2)" in done.stderr
    store = Store.open(DB, create=False)
    versions = store.versions()["q-0001"]
    assert [(s.start, s.end) for s in versions["user-2"].spans] == [(20, 40)]
    exported = run("labels", "export", "out.json")
    assert "1 double-annotated quer(y/ies) wait for adjudication" in exported.stderr
    assert json.loads((workdir / "out.json").read_text(encoding="utf-8"))["queries"] == []
    agreement = run("labels", "agreement", "--json")
    assert json.loads(agreement.stdout)["overall"]["f1"] == pytest.approx(40 / 50)
    seen = store.query("q-0001").revision
    store.adjudicate("q-0001", "keep", keep=["user-1"], annotator="lead", seen=seen)
    exported = run("labels", "export", "out.json")
    assert exported.exit_code == 0 and "wait" not in exported.stderr
    [q] = json.loads((workdir / "out.json").read_text(encoding="utf-8"))["queries"]
    assert [(e["start"], e["end"]) for e in q["evidence"]] == [(10, 40)]


def test_label_for_another_format_exits_2(workdir: Path) -> None:
    initialised(workdir)
    (workdir / "q.txt").write_text("Why?\n", encoding="utf-8")
    done = run("labels", "import", "q.txt", "--format", "queries", "--label", "x")
    assert done.exit_code == 2
    assert "--label applies to Label Studio files only" in done.stderr


def test_imported_questions_carry_only_the_slices_asked_for(workdir: Path) -> None:
    """The trial: every imported question was tagged `queries`, which said nothing."""
    initialised(workdir)
    (workdir / "q.txt").write_text("Why is it late?\nWho pays?\n", encoding="utf-8")
    plain = run("labels", "import", "q.txt", "--format", "queries")
    assert plain.exit_code == 0, plain.stderr
    store = Store.open(DB, create=False)
    new = [q for q in store.queries() if q.text in {"Why is it late?", "Who pays?"}]
    assert [q.slices for q in new] == [(), ()]
    (workdir / "more.txt").write_text("Can I return it?\n", encoding="utf-8")
    tagged = run("labels", "import", "more.txt", "-f", "queries", "--slice", "misses",
                 "--slice", "lang:en")  # fmt: skip
    assert tagged.exit_code == 0, tagged.stderr
    [q] = [q for q in store.queries() if q.text == "Can I return it?"]
    assert q.slices == ("lang:en", "misses")


@pytest.mark.parametrize("name", ["two words", "a,b", "", "x" * 65, "x\udced\udca0", "a\x01b"])
def test_a_bad_slice_exits_2_naming_the_option_and_writes_nothing(workdir: Path, name: str) -> None:
    initialised(workdir)
    (workdir / "q.txt").write_text("Why is it late?\n", encoding="utf-8")
    before = len(Store.open(DB, create=False).queries())
    done = run("labels", "import", "q.txt", "-f", "queries", "--slice", name)
    assert done.exit_code == 2
    assert "invalid slice" in done.stderr and "--slice" in done.stderr
    assert "Traceback" not in done.stderr
    assert len(Store.open(DB, create=False).queries()) == before


def test_agreement_compares_patterns_and_abstention_per_query_and_overall(
    workdir: Path,
) -> None:
    """Each version holds its own pattern and abstain flag (§3); agreement counts both."""
    initialised(workdir)
    double_annotate(workdir)
    for who, pattern, abstain in (("alice", "control", True), ("bob", "cross-reference", False)):
        store = Store.open(DB, create=False)
        store.view = who
        store.update_query("q-0003", annotator=who, boundary=pattern, abstain=abstain)
        store.close()
    done = run("labels", "agreement")
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "3 double-annotated queries"
    assert "abstain 0.667  pattern 0.667" in lines[1]
    assert (
        "  q-0003  alice+bob  F1 1.000  pattern control / cross-reference  abstain differs" in lines
    )
    data = json.loads(run("labels", "agreement", "--json").stdout)
    assert data["overall"]["pattern"] == pytest.approx(2 / 3)
    [gift] = [p for p in data["queries"] if p["query_id"] == "q-0003"]
    assert (gift["patterns"], gift["pattern_agree"], gift["abstain_agree"]) == (
        ["control", "cross-reference"], False, False)  # fmt: skip


def test_adjudicate_is_refused_to_a_blind_annotator_of_every_waiting_query(
    workdir: Path,
) -> None:
    """With `blind = true` alice may not open the agreement of queries she annotated; the
    refusal names the setting. A lead who annotated nothing gets past the check."""
    initialised(workdir)
    double_annotate(workdir)
    with (workdir / "spanlab.toml").open("a", encoding="utf-8") as f:
        f.write("blind = true\n")
    done = run("adjudicate", "--annotator", "alice")
    assert done.exit_code == 2
    assert "holds your blind version" in done.stderr and "blind = true" in done.stderr
    assert "Traceback" not in done.stderr


def test_import_replace_says_whose_spans_it_removes_and_logs_each(workdir: Path) -> None:
    data = initialised(workdir)
    store = Store.open(DB, create=False)
    text = (workdir / "corpus" / "a.md").read_text(encoding="utf-8")
    store.add_span("q-0001", Span.from_text(text, "a.md", 0, 10), text, annotator="alice")
    store.close()
    del data  # the file still holds q-0001 with its one span of ann's
    done = run("labels", "import", "labels.json", "--replace", "--annotator", "lead")
    assert done.exit_code == 0, done.stderr
    assert "q-0001: replaced; removes 1 span(s) (1 of alice's), first a.md 0..10" in done.stderr
    store = Store.open(DB, create=False)
    rows = store.conn.execute(
        "SELECT annotator, query_id, payload FROM events WHERE kind = 'query-replaced'"
    ).fetchall()
    assert [(r[0], r[1]) for r in rows] == [("lead", "q-0001")]
    assert json.loads(rows[0][2])["removed"][0]["annotator"] == "alice"
