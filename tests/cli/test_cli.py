"""The `spanlab` commands of the foundation (design §10, §13), run through CliRunner.

Each bad input must exit 2 with its file, key or offset on stderr and leave the store
exactly as it was; stdout carries data only.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.store import Store
from labeler.core.values import Boundary, Query, Span, Status
from tests.conftest import table_dump, write_corpus

A = "# Refunds\nRefunds are paid within 30 days of purchase.\n\nContact billing for help.\n"
B = "Gift cards never expire.\n"
C = "Orders ship on weekdays.\n"
DB = Path(".spanlab/labels.db")


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding `corpus/` with three documents and a PNG to skip."""
    monkeypatch.chdir(tmp_path)
    write_corpus(
        tmp_path / "corpus", {"a.md": A, "b.md": B, "sub/c.txt": C, "logo.png": b"\x89PNG"}
    )
    return tmp_path


def sample_labels() -> list[Query]:
    start = A.index("30 days")
    return [
        Query(
            "q-0001",
            "How long do refunds take?",
            boundary=Boundary.CONDITION_CONSEQUENCE,
            slices=("critical",),
            status=Status.REVIEWED,
            evidence=(Span.from_text(A, "a.md", start, start + 7),),
        ),
        Query(
            "q-0002",
            "Do gift cards expire?",
            status=Status.LABELLED,
            slices=("critical", "gift"),
            evidence=(Span.from_text(B, "b.md", 0, 10), Span.from_text(C, "sub/c.txt", 0, 6)),
        ),
        Query("q-0003", "Who is the CEO?", abstain=True),
    ]


def write_labels(path: Path, corpus: Path, queries: list[Query] | None = None) -> dict[str, Any]:
    data = labelset.to_json(queries or sample_labels(), Corpus.read(corpus))
    labelset.write_json(data, path)
    return data


def dump() -> dict[str, list[tuple[object, ...]]]:
    store = Store.open(DB, create=False)
    try:
        return table_dump(store)
    finally:
        store.close()


def initialised(workdir: Path) -> dict[str, Any]:
    assert run("init", "corpus").exit_code == 0
    data = write_labels(workdir / "labels.json", workdir / "corpus")
    done = run("labels", "import", "labels.json", "--annotator", "ann")
    assert done.exit_code == 0, done.stderr
    return data


def test_init_writes_the_config_and_binds_the_store(workdir: Path) -> None:
    done = run("init", "corpus")
    assert done.exit_code == 0, done.stderr
    corpus = Corpus.read(workdir / "corpus")
    config = tomllib.loads((workdir / "spanlab.toml").read_text(encoding="utf-8"))
    assert config == {
        "corpus": "corpus",
        "db": ".spanlab/labels.db",
        "chroma_path": ".spanlab/chroma",
        "embedding": "minilm",
    }
    store = Store.open(DB, create=False)
    assert store.corpus_hash == corpus.hash
    assert store.bound_documents() == corpus.doc_hashes
    store.close()
    assert f"hash     {corpus.hash}" in done.stdout
    assert (len(A), len(B), len(C)) == (82, 25, 25)
    assert "3 documents, 132 characters" in done.stdout
    assert (
        done.stderr
        == "warning: skipped 1 file(s) that are not documents (1 .png; first: logo.png)\n"
    )


def test_init_keeps_odd_folder_names_in_the_config(workdir: Path) -> None:
    odd = 'it\'s a \\ "folder"'
    write_corpus(workdir / odd, {"x.md": "x"})
    assert run("init", odd, "--db", "labels.db").exit_code == 0
    config = tomllib.loads((workdir / "spanlab.toml").read_text(encoding="utf-8"))
    assert (config["corpus"], config["db"]) == (odd, "labels.db")
    status = run("corpus", "status", "--json")
    assert status.exit_code == 0, status.stderr
    assert json.loads(status.stdout)["documents"] == 1


def test_undecodable_corpus_file_at_init_writes_nothing(workdir: Path) -> None:
    (workdir / "corpus" / "bad.md").write_bytes(b"ok \xff no")
    done = run("init", "corpus")
    assert done.exit_code == 2
    assert done.stderr.startswith("error: corpus/bad.md, offset 3: not valid utf-8")
    assert "--encoding" in done.stderr
    assert done.stdout == ""
    assert sorted(p.name for p in workdir.iterdir()) == ["corpus"]


def test_encoding_flag_reads_latin1_and_is_remembered(workdir: Path) -> None:
    (workdir / "corpus" / "fr.txt").write_bytes("déjà vu\n".encode("latin-1"))
    assert run("init", "corpus").exit_code == 2
    done = run("init", "corpus", "--encoding", "latin-1")
    assert done.exit_code == 0, done.stderr
    config = tomllib.loads((workdir / "spanlab.toml").read_text(encoding="utf-8"))
    assert config["encoding"] == "latin-1"
    status = run("corpus", "status", "--json")
    assert status.exit_code == 0, status.stderr
    assert json.loads(status.stdout)["documents"] == 4


def test_corpus_status_lists_changes_and_spans_waiting(workdir: Path) -> None:
    initialised(workdir)
    old = Corpus.read(workdir / "corpus").hash
    corpus = workdir / "corpus"
    (corpus / "a.md").write_text(A.replace("for help", "for assistance"))
    (corpus / "b.md").write_text(B.replace("Gift cards", "Gift vouchers"))
    (corpus / "sub" / "c.txt").unlink()
    (corpus / "d.md").write_text("New.\n")
    new = Corpus.read(corpus).hash
    done = run("corpus", "status", "--json")
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stdout)
    assert report.pop("sharing")["group"] is None  # one person's project
    assert report.pop("outside_changes") == 0  # nothing written around spanlab (§20)
    assert report == {
        "documents": 3,
        "corpus_hash": new,
        "bound_hash": old,
        "changed": ["a.md", "b.md"],
        "added": ["d.md"],
        "removed": ["sub/c.txt"],
        "spans": {"orphaned": 1, "stale": 1, "valid": 1},
        "waiting_for_review": 2,
    }
    text = run("corpus", "status")
    assert text.exit_code == 0
    assert text.stdout.splitlines() == [
        "documents  3",
        f"corpus     {new}",
        f"bound to   {old}",
        "  changed  a.md",
        "  changed  b.md",
        "  added    d.md",
        "  removed  sub/c.txt",
        "spans      1 orphaned, 1 stale, 1 valid",
        "2 span(s) wait for review: run `spanlab review`",
        "audit      clean by count (`spanlab labels audit` reads every row)",
        "sharing    none: one person's project (`spanlab init --group NAME` shares it)",
    ]


def test_status_of_an_unchanged_corpus(workdir: Path) -> None:
    initialised(workdir)
    done = run("corpus", "status")
    assert done.exit_code == 0
    assert "bound to   same" in done.stdout
    assert "spans      3 valid" in done.stdout


def test_labels_import_export_round_trip(workdir: Path) -> None:
    data = initialised(workdir)
    again = run("labels", "import", "labels.json")
    assert again.stdout == (
        "imported 0 of 3 queries from labels.json (3 already in the store with the same labels)\n"
    )
    done = run("labels", "export", "frozen.json")
    assert done.exit_code == 0, done.stderr
    frozen = json.loads((workdir / "frozen.json").read_text(encoding="utf-8"))
    assert frozen["queries"] == data["queries"]
    assert frozen["label_set_hash"] == data["label_set_hash"]
    # the file's own sha256 (issue 23: the label set's was printed as if it were the file's)
    digest = hashlib.sha256((workdir / "frozen.json").read_bytes()).hexdigest()
    assert done.stdout == (
        f"wrote 3 queries to frozen.json  (sha256 {digest}; label set {data['label_set_hash']})\n"
    )


def test_labels_stats_text_and_json(workdir: Path) -> None:
    initialised(workdir)
    done = run("labels", "stats", "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout) == {
        "queries": 3,
        "spans": 3,
        "abstain": 1,
        "multi_span": 1,
        "by_status": {"draft": 1, "labelled": 1, "reviewed": 1},
        "by_boundary": {"other": 2, "condition-consequence": 1},
        "by_slice": {"critical": 2, "gift": 1},
        "by_document": {"a.md": 1, "b.md": 1, "sub/c.txt": 1},
        "by_annotator": {"ann": 3},
        "work": {"ann": {"queries": 3, "spans": 3, "reviewed": 0, "adjudicated": 0, "resolved": 0}},
    }
    text = run("labels", "stats")
    assert text.stdout.startswith("queries 3  spans 3  abstain 1  multi-span 1\n")
    assert "  critical  " in text.stdout
    assert text.stdout.endswith(
        "work    created  spans  reviewed  adjudicated  stale resolved\n"
        "  ann         3      3         0            0               0\n"
    )


def test_label_set_for_another_corpus_exits_2_and_changes_nothing(workdir: Path) -> None:
    initialised(workdir)
    other = write_corpus(workdir / "other", {"a.md": A.upper(), "b.md": B, "new.md": "n"})
    write_labels(workdir / "foreign.json", other, [Query("q-0100", "Foreign?")])
    before = dump()
    done = run("labels", "import", "foreign.json")
    assert done.exit_code == 2
    assert done.stderr.startswith("error: foreign.json, key corpus.hash: the labels were made")
    assert "  changed: a.md\n" in done.stderr
    assert "  only in the corpus folder: sub/c.txt\n" in done.stderr
    assert "  missing from the corpus folder: new.md\n" in done.stderr
    assert "spanlab review" in done.stderr
    assert done.stdout == ""
    assert dump() == before


def test_mismatched_quote_exits_2_and_changes_nothing(workdir: Path) -> None:
    initialised(workdir)
    data = json.loads((workdir / "labels.json").read_text(encoding="utf-8"))
    data["queries"][1]["id"] = "q-0009"
    data["queries"][1]["evidence"][1]["quote"] = "Parcel"
    data["label_set_hash"] = labelset.hash_queries(data["queries"])
    labelset.write_json(data, workdir / "bad.json")
    before = dump()
    done = run("labels", "import", "bad.json")
    assert done.exit_code == 2
    assert done.stderr.startswith(
        "error: bad.json, key queries[1].evidence[1].quote, offset 0: quote does not match"
    )
    assert dump() == before


def test_out_of_range_span_exits_2_with_the_offset(workdir: Path) -> None:
    initialised(workdir)
    data = json.loads((workdir / "labels.json").read_text(encoding="utf-8"))
    data["queries"][0]["evidence"][0].update(start=500, end=507)
    data["label_set_hash"] = labelset.hash_queries(data["queries"])
    labelset.write_json(data, workdir / "far.json")
    before = dump()
    done = run("labels", "import", "far.json")
    assert done.exit_code == 2
    assert "key queries[0].evidence[0].start, offset 500" in done.stderr
    assert dump() == before


def test_malformed_json_exits_2_with_the_line(workdir: Path) -> None:
    initialised(workdir)
    (workdir / "broken.json").write_text('{\n  "format": "spanlab.labelset/1",\n  oops\n}\n')
    before = dump()
    done = run("labels", "import", "broken.json")
    assert done.exit_code == 2
    assert done.stderr.startswith("error: broken.json:3: not valid JSON")
    assert dump() == before


def test_malformed_config_exits_2_and_changes_nothing(workdir: Path) -> None:
    initialised(workdir)
    (workdir / "spanlab.toml").write_text('corpus = "corpus"\ndb = \n')
    before = dump()
    for command in (["corpus", "status"], ["labels", "import", "labels.json"], ["init", "corpus"]):
        done = run(*command)
        assert done.exit_code == 2, command
        assert done.stderr.startswith(f"error: {workdir / 'spanlab.toml'}: malformed TOML")
        assert "line 2" in done.stderr
    assert dump() == before


def test_config_that_is_not_utf8_is_named_with_its_offset(workdir: Path) -> None:
    (workdir / "spanlab.toml").write_bytes(b'corpus = "corp\xe9"\n')
    done = run("corpus", "status")
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: {workdir / 'spanlab.toml'}, offset 14: not valid UTF-8")


def test_unknown_config_key_is_named(workdir: Path) -> None:
    (workdir / "spanlab.toml").write_text('corpus = "corpus"\ncolour = "blue"\n')
    done = run("corpus", "status")
    assert done.exit_code == 2
    assert f"{workdir / 'spanlab.toml'}, key colour: unknown key 'colour'" in done.stderr


def test_commands_before_init_point_to_init(workdir: Path) -> None:
    done = run("corpus", "status", "--corpus", "corpus")
    assert done.exit_code == 2
    assert "no label store here" in done.stderr and "spanlab init" in done.stderr
    assert not (workdir / ".spanlab").exists()


def test_export_refuses_while_spans_are_stale(workdir: Path) -> None:
    initialised(workdir)
    (workdir / "corpus" / "b.md").write_text("Gift cards do expire.\n")
    before = dump()
    done = run("labels", "export", "frozen.json")
    assert done.exit_code == 2
    assert "1 span(s) wait for review" in done.stderr and "spanlab review" in done.stderr
    assert not (workdir / "frozen.json").exists()
    assert dump() == before


def test_export_into_a_missing_folder_exits_2(workdir: Path) -> None:
    initialised(workdir)
    done = run("labels", "export", "no/such/dir/frozen.json")
    assert done.exit_code == 2
    assert done.stderr.startswith("error: no/such/dir/frozen.json: cannot write")


def test_unknown_format_exits_2(workdir: Path) -> None:
    initialised(workdir)
    done = run("labels", "import", "labels.json", "--format", "csv-ish")
    assert done.exit_code == 2
    assert "key format: unknown format 'csv-ish'" in done.stderr


def squad_file(path: Path, question: str, *extra_contexts: str) -> None:
    """A SQuAD v2 file with one answered question; extra contexts become extra documents."""
    paragraphs: list[dict[str, Any]] = [
        {
            "context": "Paris is the capital of France.",
            "qas": [
                {
                    "id": "s1",
                    "question": question,
                    "answers": [{"text": "Paris", "answer_start": 0}],
                }
            ],
        }
    ]
    paragraphs += [{"context": c, "qas": []} for c in extra_contexts]
    data = {"version": "v2.0", "data": [{"title": "Geo", "paragraphs": paragraphs}]}
    path.write_text(json.dumps(data), encoding="utf-8")


def corpus_files(workdir: Path) -> list[str]:
    return sorted(p.relative_to(workdir).as_posix() for p in workdir.rglob("corpus/**/*.*"))


def test_refused_import_writes_no_documents_into_the_corpus(workdir: Path) -> None:
    initialised(workdir)
    squad_file(workdir / "first.json", "What is the capital of France?")
    assert run("labels", "import", "first.json", "--format", "squad").exit_code == 0
    # Same SQuAD id, reworded question, and one more paragraph (a new document).
    squad_file(workdir / "second.json", "Which city is France's capital?", "Berlin is big.")
    files, before = corpus_files(workdir), dump()
    done = run("labels", "import", "second.json", "--format", "squad")
    assert done.exit_code == 2
    assert "key id: 1 quer(y/ies) already exist with different labels: s1" in done.stderr
    assert corpus_files(workdir) == files
    assert dump() == before


def test_import_while_spans_wait_writes_no_documents(workdir: Path) -> None:
    initialised(workdir)
    (workdir / "corpus" / "b.md").write_text("Gift cards do expire.\n")
    squad_file(workdir / "s.json", "What is the capital of France?")
    files, before = corpus_files(workdir), dump()
    done = run("labels", "import", "s.json", "--format", "squad")
    assert done.exit_code == 2
    assert "wait for review" in done.stderr and "spanlab review" in done.stderr
    assert corpus_files(workdir) == files
    assert dump() == before
