"""Every annotator survives the other span formats too (§14): two Argilla users' responses
on one record, or two Prodigy annotators' tasks of one text, are two versions."""

from __future__ import annotations

import json
from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.formats import argilla, prodigy

TEXT = "Refunds take 5 days. Returns need a label."
CORPUS = Corpus.from_texts({"refunds.md": TEXT})
Q = "What do returns need?"


def span(frag: str) -> dict[str, object]:
    s = TEXT.index(frag)
    return {"label": "evidence", "start": s, "end": s + len(frag)}


def test_two_argilla_users_give_two_versions(tmp_path: Path) -> None:
    record = {"id": "r1", "fields": {"text": TEXT, "question": Q}, "metadata": {},
              "responses": {"evidence": [
                  {"value": [span("Returns need a label")], "user_id": "u-a"},
                  {"value": [span("a label")], "user_id": "u-b", "status": "submitted"},
              ]}, "suggestions": {}, "vectors": {}}  # fmt: skip
    path = tmp_path / "a.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    got = argilla.read(path, CORPUS, existing=[])
    [q] = got.queries
    assert q.evidence == ()
    assert [(v.annotator, [s.quote for s in v.spans]) for _, v in got.versions] == [
        ("u-a", ["Returns need a label"]), ("u-b", ["a label"])
    ]  # fmt: skip


def test_one_argilla_user_is_the_query_evidence(tmp_path: Path) -> None:
    record = {"id": "r1", "fields": {"text": TEXT, "question": Q}, "metadata": {},
              "responses": {"evidence": [{"value": [span("a label")], "user_id": "u-a",
                                          "status": "submitted"}]}}  # fmt: skip
    path = tmp_path / "a.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    got = argilla.read(path, CORPUS, existing=[])
    assert [s.quote for s in got.queries[0].evidence] == ["a label"] and got.versions == ()
    assert got.queries[0].annotator == "u-a"


def test_two_prodigy_annotators_of_one_text_give_two_versions(tmp_path: Path) -> None:
    pairs = (("ann-1", "Refunds"), ("ann-2", "5 days"))
    rows = [{"text": TEXT, "spans": [span(frag)], "meta": {"question": Q}, "answer": "accept",
             "_annotator_id": who} for who, frag in pairs]  # fmt: skip
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = prodigy.read(path, CORPUS, existing=[])
    assert sorted(v.annotator for _, v in got.versions) == ["ann-1", "ann-2"]
