"""Label Studio and doccano both ways with every annotator (§3 double annotation, §14).

`from_label_studio.*` and `from_doccano/` are real exports of Label Studio 1.23.2 and
doccano 1.8.4 (see the tests that read them).

The fixtures in tests/core/formats/two_annotators/ are one small two-annotator project
(user 1 and user 2) written by hand in each shape Label Studio exports — JSON, JSON-MIN
and CSV as label-studio-sdk 2.1.2's converter writes them (converter.py
convert_to_json_min, exports/csv2.py) — and as two doccano member files (`alice.jsonl`,
`bob.jsonl`, the name doccano gives each member's export). Query 1 spans two documents,
one of them annotated by both users, the other by user 1 only.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.store import Store
from tests.conftest import table_dump, write_corpus, write_demo_project
from tests.core.formats.tool_rules import doccano_refusal, label_studio_refusal

HERE = Path(__file__).parent.parent / "core" / "formats" / "two_annotators"
DB = Path(".spanlab/labels.db")
SHAPES = ("project.json", "project_min.json", "project.csv")
LS_CONFIG = {"text": "Text", "question": "Header"}


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {
        "privacy.txt": (HERE / "corpus_privacy.txt").read_text(encoding="utf-8"),
        "closing.md": (HERE / "corpus_closing.md").read_text(encoding="utf-8"),
    })  # fmt: skip
    assert run("init", "corpus").exit_code == 0
    return tmp_path


def fresh(workdir: Path) -> None:
    for p in (workdir / ".spanlab").iterdir():
        shutil.rmtree(p) if p.is_dir() else p.unlink()  # the store and its writers' records
    done = run("init", "corpus")
    assert done.exit_code == 0, done.output


def versions() -> dict[str, dict[str, list[tuple[str, int, int]]]]:
    store = Store.open(DB, create=False)
    try:
        return {
            store.query(qid).text: {
                who: [(s.doc, s.start, s.end) for s in v.spans] for who, v in vs.items()
            }
            for qid, vs in store.versions().items()
        }
    finally:
        store.close()


def agreement() -> dict[str, Any]:
    done = run("labels", "agreement", "--json")
    assert done.exit_code == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return {"overall": data["overall"], "double": data["double"]}


EXPECTED = {
    "How long is my data kept?": {
        "user-1": [("closing.md", 38, 72), ("privacy.txt", 20, 31)],
        "user-2": [("privacy.txt", 0, 31)],
    },
    "How do I close my account?": {
        "user-1": [("closing.md", 23, 36)],
        "user-2": [("closing.md", 0, 21), ("closing.md", 23, 36)],
    },
}


def test_json_json_min_and_csv_give_the_same_versions_and_agreement(workdir: Path) -> None:
    seen = []
    for shape in SHAPES:
        fresh(workdir)
        done = run("labels", "import", str(HERE / shape), "--label", "evidence")
        assert done.exit_code == 0, done.stderr
        assert "span labels seen: distractor, evidence; counted as evidence: evidence" in (
            done.stderr
        )
        assert "4 annotator version(s) kept (user-1, user-2)" in done.stderr
        # each annotator's version holds their spans in every document of the query
        assert versions() == EXPECTED, shape
        seen.append(agreement())
    assert seen[0]["double"] == 2 and seen[0] == seen[1] == seen[2]


def test_label_studios_own_exports_of_spanlabs_export_give_the_versions_back(
    workdir: Path,
) -> None:
    """from_label_studio.*: spanlab's export of this project loaded into Label Studio
    1.23.2 through its API (`POST /api/projects/2/import`) and exported again as JSON,
    JSON_MIN and CSV. Label Studio made the importing user (id 1) author of every
    annotation; the names come back from `data.annotators`."""
    seen = []
    for shape in ("from_label_studio.json", "from_label_studio_min.json", "from_label_studio.csv"):
        fresh(workdir)
        done = run("labels", "import", str(HERE / shape))
        assert done.exit_code == 0, done.stderr
        assert versions() == EXPECTED, shape
        seen.append(agreement())
    assert seen[0]["double"] == 2 and seen[0] == seen[1] == seen[2]


def test_without_label_a_distractor_counts_in_every_shape(workdir: Path) -> None:
    for shape in SHAPES:
        fresh(workdir)
        assert run("labels", "import", str(HERE / shape)).exit_code == 0
        got = versions()["How long is my data kept?"]["user-2"]
        assert got == [("privacy.txt", 0, 31), ("privacy.txt", 33, 51)], shape


def test_label_outside_label_studio_is_refused(workdir: Path) -> None:
    done = run("labels", "import", str(HERE / "alice.jsonl"), "--label", "evidence")
    assert done.exit_code == 2
    assert "--label applies to Label Studio files only" in done.stderr
    assert versions() == {}


def test_two_doccano_member_files_give_two_versions_per_query(workdir: Path) -> None:
    first = run("labels", "import", str(HERE / "alice.jsonl"), "--as-version")
    assert first.exit_code == 0, first.stderr
    assert "2 new, 0 joined, 0 skipped of 2 queries" in first.stdout
    second = run("labels", "import", str(HERE / "bob.jsonl"), "--as-version")
    assert second.exit_code == 0, second.stderr
    assert "0 new, 2 joined, 0 skipped of 2 queries" in second.stdout
    got = versions()
    assert sorted(got["How long is my data kept?"]) == ["alice", "bob"]
    assert got["How do I close my account?"]["bob"] == [
        ("closing.md", 0, 21),
        ("closing.md", 23, 36),
    ]
    # UTF-16 offsets of bob's span after the lock emoji land on code points
    assert got["How long is my data kept?"]["bob"][1] == ("privacy.txt", 33, 51)
    assert agreement()["double"] == 2
    again = run("labels", "import", str(HERE / "bob.jsonl"), "--as-version")
    assert "0 new, 0 joined, 2 skipped" in again.stdout


def test_doccanos_own_member_exports_give_the_same_versions(workdir: Path) -> None:
    """from_doccano/*.jsonl: the project made in doccano 1.8.4 through its API, users
    alice and bob each adding their spans (UTF-16 offsets), exported as doccano does, one
    JSONL per member (data_export/celery_tasks.py)."""
    for member in ("alice", "bob"):
        done = run(
            "labels", "import", str(HERE / "from_doccano" / f"{member}.jsonl"), "--as-version"
        )
        assert done.exit_code == 0, done.stderr
    from_tool = versions()
    agreed = agreement()
    fresh(workdir)
    for member in ("alice", "bob"):
        assert run("labels", "import", str(HERE / f"{member}.jsonl"), "--as-version").exit_code == 0
    assert from_tool == versions() and agreed == agreement() and agreed["double"] == 2


def test_a_member_file_joins_queries_imported_plainly(workdir: Path) -> None:
    """The first annotator's own evidence becomes their version when the second joins."""
    assert run("labels", "import", str(HERE / "alice.jsonl"), "--annotator", "alice").exit_code == 0
    done = run("labels", "import", str(HERE / "bob.jsonl"), "--as-version")
    assert done.exit_code == 0, done.stderr
    assert "(alice, bob)" in done.stdout and "2 joined" in done.stdout
    assert sorted(versions()["How do I close my account?"]) == ["alice", "bob"]


def test_a_different_earlier_version_is_kept_and_said(workdir: Path, tmp_path: Path) -> None:
    assert run("labels", "import", str(HERE / "bob.jsonl"), "--as-version").exit_code == 0
    other = tmp_path / "bob.jsonl"
    other.write_text((HERE / "alice.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    before = versions()
    done = run("labels", "import", str(other), "--as-version")
    assert done.exit_code == 0
    assert "kept bob's version in the store, which differs" in done.stderr
    assert "2 skipped" in done.stdout and versions() == before


def test_a_file_whose_annotator_cannot_be_told_changes_nothing(
    workdir: Path, tmp_path: Path
) -> None:
    rows = [json.loads(line) for line in (HERE / "alice.jsonl").read_text().splitlines()]
    path = tmp_path / "export.json"  # a doccano export renamed: no member name, no annotator
    path.write_text(json.dumps([{"data": {"text": r["text"], "question": r["question"]}}
                                for r in rows]), encoding="utf-8")  # fmt: skip
    store = Store.open(DB, create=False)
    before = table_dump(store)
    store.close()
    done = run("labels", "import", str(path), "--as-version")
    assert done.exit_code == 2
    assert "cannot tell whose annotation" in done.stderr and "--annotator" in done.stderr
    store = Store.open(DB, create=False)
    assert table_dump(store) == before


def test_label_studio_export_of_waiting_queries_takes_every_version_back(workdir: Path) -> None:
    assert run("labels", "import", str(HERE / "project.json"), "--label", "evidence").exit_code == 0
    before, agreed = versions(), agreement()
    done = run("labels", "export", "ls.json", "--format", "label-studio")
    assert done.exit_code == 0, done.stderr
    assert "2 quer(y/ies) waiting for adjudication (one annotation per version)" in done.stderr
    tasks = json.loads(Path("ls.json").read_text(encoding="utf-8"))
    assert label_studio_refusal(tasks, LS_CONFIG) is None
    assert [len(t["annotations"]) for t in tasks] == [2, 2, 2]
    fresh(workdir)
    assert run("labels", "import", "ls.json").exit_code == 0
    assert versions() == {
        q: {"user-1": v["user-1"], "user-2": v["user-2"]} for q, v in before.items()
    }
    assert agreement() == agreed


@pytest.mark.parametrize("fmt", ["doccano", "prodigy", "argilla"])
def test_an_export_of_only_undecided_queries_is_refused_writing_nothing(
    workdir: Path, fmt: str
) -> None:
    """Issue 28 (7): every query waits for adjudication; an empty file with exit 0 looked
    like an export."""
    assert run("labels", "import", str(HERE / "project.json")).exit_code == 0
    done = run("labels", "export", "out.jsonl", "--format", fmt)
    assert done.exit_code == 2, done.stderr
    assert done.stderr.startswith(
        f"error: out.jsonl: all 2 quer(y/ies) wait for adjudication and {fmt} cannot hold "
        "undecided "
        "versions; nothing was written\nhint: adjudicate them (`spanlab adjudicate`), or "
        "export with --format label-studio"
    )
    assert done.stdout == ""
    assert not (workdir / "out.jsonl").exists()


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_demo_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spanlab.toml").write_text(
        'corpus = "corpus"\ndb = "labels.db"\n', encoding="utf-8"
    )
    return tmp_path


def test_demo_export_to_label_studio_holds_every_query_abstentions_included(demo: Path) -> None:
    done = run("labels", "export", "ls.json", "--format", "label-studio")
    assert done.exit_code == 0, done.stderr
    tasks = json.loads(Path("ls.json").read_text(encoding="utf-8"))
    assert label_studio_refusal(tasks, LS_CONFIG) is None
    queries = {t["data"]["query_id"] for t in tasks}
    abstain = [t for t in tasks if t["data"]["abstain"]]
    assert abstain and all(t["data"]["text"] == "" and t["annotations"] == [{"result": []}]
                           for t in abstain)  # fmt: skip
    digest = hashlib.sha256(Path("ls.json").read_bytes()).hexdigest()
    assert done.stdout.startswith(f"wrote {len(queries)} queries in {len(tasks)} records")
    assert f"sha256 {digest}" in done.stdout
    assert f"{len(abstain)} quer(y/ies) abstentions (empty text)" in done.stderr


def test_demo_export_to_doccano_says_what_the_file_holds(demo: Path) -> None:
    done = run("labels", "export", "d.jsonl", "--format", "doccano")
    assert done.exit_code == 0, done.stderr
    lines = [json.loads(x) for x in Path("d.jsonl").read_text(encoding="utf-8").splitlines()]
    held = len({line["query_id"] for line in lines})
    assert done.stdout.startswith(f"wrote {held} queries in {len(lines)} records to d.jsonl")
    assert "abstention quer(y/ies) left out" in done.stderr
    allowed = doccano_refusal(lines, allow_overlapping=True)
    assert allowed is None
    if doccano_refusal(lines) is not None:  # spans that overlap: doccano drops them unless allowed
        assert "Allow overlapping spans" in done.stderr


def test_label_studio_config_names_are_options(demo: Path) -> None:
    done = run("labels", "export", "ls.json", "--format", "label-studio", "--from-name", "ev",
               "--to-name", "document", "--text-key", "body")  # fmt: skip
    assert done.exit_code == 0, done.stderr
    tasks = json.loads(Path("ls.json").read_text(encoding="utf-8"))
    config = {"body": "Text", "question": "Header"}
    assert (
        label_studio_refusal(tasks, config, from_name="ev", to_name="document", text_key="body")
        is None
    )
    assert label_studio_refusal(tasks, LS_CONFIG) is not None  # the default names differ
    bad = run("labels", "export", "x.json", "--format", "label-studio", "--text-key", "question")
    assert bad.exit_code == 2 and "--text-key 'question' is a key spanlab writes" in bad.stderr


def test_export_help_does_not_claim_a_guess_and_a_missing_file_is_missing(workdir: Path) -> None:
    helped = run("labels", "export", "--help")
    assert "guessed" not in helped.stdout
    done = run("labels", "import", "nowhere.jsonl")
    assert done.exit_code == 2
    assert "no such file" in done.stderr and "cannot tell the format" not in done.stderr


def test_a_second_member_file_without_as_version_says_what_to_pass(workdir: Path) -> None:
    assert run("labels", "import", str(HERE / "alice.jsonl")).exit_code == 0
    done = run("labels", "import", str(HERE / "bob.jsonl"))
    assert done.exit_code == 0
    assert "(2 skipped, already in the store)" in done.stdout and "of 2 queries" in done.stdout
    assert "--as-version" in done.stderr
    assert versions() == {}


def test_version_of_names_whose_file_it_is(workdir: Path, tmp_path: Path) -> None:
    other = tmp_path / "export.jsonl"  # a member file renamed: the name is no member's
    other.write_text((HERE / "bob.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    assert run("labels", "import", str(HERE / "alice.jsonl"), "--as-version").exit_code == 0
    done = run("labels", "import", str(other), "--as-version", "--version-of", "bob")
    assert done.exit_code == 0, done.stderr
    assert sorted(versions()["How do I close my account?"]) == ["alice", "bob"]


def test_keeping_one_annotator_keeps_their_spans_in_every_document(workdir: Path) -> None:
    """q-0023 of the issue: "keep user-1" had deleted user-1's span in the document only
    user-1 annotated, which the JSON reader had left outside the versions."""
    assert run("labels", "import", str(HERE / "project.json"), "--label", "evidence").exit_code == 0
    store = Store.open(DB, create=False)
    try:
        [qid] = [q.id for q in store.queries() if q.text == "How long is my data kept?"]
        seen = store.query(qid).revision
        kept = store.adjudicate(qid, "keep", annotator="reviewer", seen=seen, keep=["user-1"])
    finally:
        store.close()
    assert [(s.doc, s.start, s.end) for s in kept.evidence] == [
        ("closing.md", 38, 72), ("privacy.txt", 20, 31)
    ]  # fmt: skip
