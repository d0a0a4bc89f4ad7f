"""Facts through the command line (§23): `labels import` and `export` carry them (the label
set as spanlab.labelset/4, Label Studio in `data.facts`, doccano in a `facts` column; other
formats say they leave them out), `show` prints them, and a label file with malformed facts
exits 2 naming the file, the query and the key, having written nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.store import Store
from labeler.core.values import Query, Span, Status
from tests.conftest import table_dump, write_corpus

ANSWER = "Refunds are paid within 14 days."
TEXTS = {"x.md": f"Refund timing for card payments.\n{ANSWER}\n",
         "y.md": "Shipping zones and parcel sizes.\nParcels ship in 2 days.\n"}  # fmt: skip
FACTS = (("14 days", "two weeks"), ("card",))
DB = Path(".spanlab/labels.db")
CANDIDATES = """[settings]
baseline = "whole"
k = 1
depth = 5
retriever = "lexical"

[[candidate]]
name = "whole"
splitter = "chars"
size = 400

[[candidate]]
name = "whole-too"
splitter = "chars"
size = 500
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", TEXTS)
    assert run("init", "corpus").exit_code == 0
    return tmp_path


def labelled(corpus: Corpus) -> Query:
    text = corpus.text("x.md")
    start = text.index(ANSWER)
    span = Span.from_text(text, "x.md", start, start + len(ANSWER))
    return Query("q-0001", "When are card refunds paid?", status=Status.LABELLED,
                 evidence=(span,), facts=FACTS)  # fmt: skip


def dump() -> dict[str, list[tuple[object, ...]]]:
    store = Store.open(DB, create=False)
    try:
        return table_dump(store)
    finally:
        store.close()


def test_a_set_with_facts_imports_and_exports_as_the_identity(workdir: Path) -> None:
    corpus = Corpus.read(workdir / "corpus")
    data = labelset.to_json([labelled(corpus)], corpus)
    assert data["format"] == "spanlab.labelset/4"
    labelset.write_json(data, workdir / "in.json")
    assert run("labels", "import", "in.json").exit_code == 0
    done = run("labels", "export", "out.json")
    assert done.exit_code == 0, done.stderr
    out = json.loads((workdir / "out.json").read_text(encoding="utf-8"))
    assert (out["format"], out["label_set_hash"]) == (data["format"], data["label_set_hash"])
    assert out["queries"][0]["facts"] == [["14 days", "two weeks"], ["card"]]


@pytest.mark.parametrize("fmt", ["label-studio", "doccano"])
def test_tools_that_can_hold_facts_carry_them_both_ways(workdir: Path, fmt: str) -> None:
    corpus = Corpus.read(workdir / "corpus")
    labelset.write_json(labelset.to_json([labelled(corpus)], corpus), workdir / "in.json")
    assert run("labels", "import", "in.json").exit_code == 0
    done = run("labels", "export", "out.file", "--format", fmt)
    assert done.exit_code == 0, done.stderr
    assert "facts" not in done.stderr
    back = formats.get(fmt).read(workdir / "out.file", corpus, existing=())
    assert [q.facts for q in back.queries] == [FACTS]


def test_a_tool_that_cannot_hold_facts_says_which_queries_lose_them(workdir: Path) -> None:
    corpus = Corpus.read(workdir / "corpus")
    labelset.write_json(labelset.to_json([labelled(corpus)], corpus), workdir / "in.json")
    assert run("labels", "import", "in.json").exit_code == 0
    done = run("labels", "export", "out.jsonl", "--format", "prodigy")
    assert done.exit_code == 0, done.stderr
    assert "1 quer(y/ies) carry facts prodigy cannot hold (q-0001): left out" in done.stderr


def test_show_prints_the_querys_facts(workdir: Path) -> None:
    corpus = Corpus.read(workdir / "corpus")
    labelset.write_json(labelset.to_json([labelled(corpus)], corpus), workdir / "in.json")
    assert run("labels", "import", "in.json").exit_code == 0
    (workdir / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    assert run("eval", "candidates.toml").exit_code == 0
    shown = run("show", "latest", "q-0001")
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    at = lines.index("facts a complete answer states:")
    assert lines[at + 1 : at + 3] == ["  f1  14 days | two weeks", "  f2  card"]


def _bad(facts: Any, *, abstain: bool = False, fmt: str = "spanlab.labelset/4") -> Any:
    def make(corpus: Corpus) -> dict[str, Any]:
        data = labelset.to_json([labelled(corpus)], corpus)
        item = data["queries"][0]
        item["facts"] = facts
        if abstain:
            item.update(abstain=True, evidence=[])
        data.update(format=fmt, label_set_hash=labelset.hash_queries(data["queries"]))
        return data

    return make


CASES = [
    ("not a list", _bad("14 days"), "queries[0].facts", "facts must be a list"),
    ("a number", _bad([["14 days", 14]]), "queries[0].facts[0][1]",
     "a phrasing must be a text, got int"),
    ("too long", _bad([["x" * 201]]), "queries[0].facts[0][0]",
     "is 201 characters, over the limit of 200"),
    ("escape", _bad([["14\x1b[2J days"]]), "queries[0].facts[0][0]", "a control character"),
    ("newline", _bad([["14\ndays"]]), "queries[0].facts[0][0]", "a control character"),
    ("duplicate", _bad([["14 days"], ["14 Days"]]), "queries[0].facts[1][0]", "repeats"),
    ("abstention", _bad([["14 days"]], abstain=True), "queries[0].facts",
     "abstention query but has facts"),
    ("in a /3 file", _bad([["14 days"]], fmt="spanlab.labelset/3"), "queries[0].facts",
     "'facts' needs format 'spanlab.labelset/4'"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "make", "key", "message"), CASES, ids=[c[0] for c in CASES])
def test_malformed_facts_exit_2_naming_file_query_and_key_and_write_nothing(
    workdir: Path, name: str, make: Any, key: str, message: str
) -> None:
    labelset.write_json(make(Corpus.read(workdir / "corpus")), workdir / "bad.json")
    before = dump()
    done = run("labels", "import", "bad.json")
    assert done.exit_code == 2, done.output
    first = next(line for line in done.stderr.splitlines() if line.startswith("error:"))
    assert first.startswith(f"error: bad.json, key {key}: query q-0001"), first
    assert message in first
    assert "\x1b" not in done.stderr and "Traceback" not in done.output
    assert dump() == before
