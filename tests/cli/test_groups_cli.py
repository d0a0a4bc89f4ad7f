"""Hostile groups on import (§18): a group that is not a positive integer, or alternatives
whose quotes do not match, exit 2 naming the file, the query and the item; nothing is
written. One case table over every reader that takes groups."""

from __future__ import annotations

import json
from collections.abc import Callable
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

FACT = "Refunds are paid within 14 days."
TEXTS = {"x.md": f"Intro.\n{FACT}\nAlso: cards.\n", "y.md": f"Other words.\n{FACT}\n"}
DB = Path(".spanlab/labels.db")


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def copy(corpus: Corpus, doc: str, group: int | None) -> Span:
    start = corpus.text(doc).index(FACT)
    span = Span.from_text(corpus.text(doc), doc, start, start + len(FACT))
    return Span(**{**span.__dict__, "group": group})


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", TEXTS)
    assert run("init", "corpus").exit_code == 0
    return tmp_path


def grouped(corpus: Corpus) -> Query:
    return Query("q-0001", "When are refunds paid?", status=Status.LABELLED,
                 evidence=(copy(corpus, "x.md", 1), copy(corpus, "y.md", 1)))  # fmt: skip


def dump() -> dict[str, list[tuple[object, ...]]]:
    store = Store.open(DB, create=False)
    try:
        return table_dump(store)
    finally:
        store.close()


Edit = Callable[[Any], None]


def _labelset(edit: Edit, *, v1: bool = False) -> Callable[[Path, Corpus], None]:
    def write(out: Path, corpus: Corpus) -> None:
        data = labelset.to_json([grouped(corpus)], corpus)
        edit(data["queries"][0]["evidence"])
        if v1:
            data["format"] = labelset.FORMAT
        data["label_set_hash"] = labelset.hash_queries(data["queries"])
        labelset.write_json(data, out)

    return write


def _tool(fmt: str, edit: Edit) -> Callable[[Path, Corpus], None]:
    def write(out: Path, corpus: Corpus) -> None:
        formats.get(fmt).write([grouped(corpus)], corpus, out)
        text = out.read_text(encoding="utf-8")
        rows = [json.loads(line) for line in text.splitlines()] if fmt != "label-studio" else None
        data = json.loads(text) if rows is None else rows
        edit(data)
        body = json.dumps(data) if rows is None else "\n".join(json.dumps(r) for r in data)
        out.write_text(body + "\n", encoding="utf-8")

    return write


def _set(i: int, value: object) -> Edit:
    return lambda ev: ev[i].__setitem__("group", value)


def _shift_quote(ev: Any) -> None:
    ev[1].update(
        start=0, end=5, quote="Other", prefix="", suffix=" words.\nRefunds are paid within"
    )


MISMATCH = (
    "query q-0001: evidence[1] (y.md 0..5) is an alternative in group 1, but its quote "
    "'Other' does not match 'Refunds are paid within 14 days.' (x.md 7..39)"
)
CASES = [
    ("zero", _labelset(_set(0, 0)), "queries[0].evidence[0].group",
     "group must be a positive integer, got 0"),
    ("negative", _labelset(_set(1, -3)), "queries[0].evidence[1].group",
     "group must be a positive integer, got -3"),
    ("text", _labelset(_set(0, "1")), "queries[0].evidence[0].group",
     "group must be a positive integer, got '1'"),
    ("fraction", _labelset(_set(0, 1.5)), "queries[0].evidence[0].group",
     "group must be a positive integer, got 1.5"),
    ("boolean", _labelset(_set(0, True)), "queries[0].evidence[0].group",
     "group must be a positive integer, got True"),
    ("null", _labelset(_set(0, None)), "queries[0].evidence[0].group",
     "group must be a positive integer, got None"),
    ("in a /1 file", _labelset(lambda ev: None, v1=True), "queries[0].evidence[0].group",
     "'group' needs format 'spanlab.labelset/2', the file says 'spanlab.labelset/1'"),
    ("quotes differ", _labelset(_shift_quote), "queries[0].evidence[1].group", MISMATCH),
    ("prodigy zero", _tool("prodigy", lambda rows: rows[0]["spans"][0].update(group=0)),
     "spans[0].group", "group must be a positive integer, got 0"),
    ("doccano text", _tool("doccano", lambda rows: rows[1]["groups"].update(
        {k: "two" for k in rows[1]["groups"]})), "groups.13-45",
     "group must be a positive integer, got 'two'"),
    ("label studio negative", _tool("label-studio", lambda tasks: tasks[0]["data"]["groups"]
        .update({"q-0001-0": -1})), "[0].data.groups.q-0001-0",
     "group must be a positive integer, got -1"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "make", "key", "message"), CASES, ids=[c[0] for c in CASES])
def test_hostile_groups_exit_2_naming_the_item_and_write_nothing(
    workdir: Path, name: str, make: Callable[[Path, Corpus], None], key: str | None, message: str
) -> None:
    fmt = next((f for f in ("prodigy", "doccano", "label-studio") if name.startswith(
        f.replace("-", " "))), "spanlab")  # fmt: skip
    make(workdir / "bad.json", Corpus.read(workdir / "corpus"))
    before = dump()
    done = run("labels", "import", "bad.json", "--format", fmt)
    assert done.exit_code == 2, done.output
    first = next(line for line in done.stderr.splitlines() if line.startswith("error:"))
    assert first.startswith("error: bad.json"), first
    if key is not None:
        assert f"key {key}:" in first, first
    assert message in first
    assert dump() == before
    assert "Traceback" not in done.output


def test_a_grouped_set_imports_and_exports_as_the_identity(workdir: Path) -> None:
    corpus = Corpus.read(workdir / "corpus")
    data = labelset.to_json([grouped(corpus)], corpus)
    labelset.write_json(data, workdir / "in.json")
    assert run("labels", "import", "in.json").exit_code == 0
    done = run("labels", "export", "out.json")
    assert done.exit_code == 0, done.stderr
    out = json.loads((workdir / "out.json").read_text(encoding="utf-8"))
    assert out["format"] == "spanlab.labelset/2"
    assert out["label_set_hash"] == data["label_set_hash"]
    assert out["queries"] == data["queries"]
