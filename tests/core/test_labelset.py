"""The frozen label set, `spanlab.labelset/1` (design §4): shape, hash, all-or-nothing import."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeler.core.corpus.canonical import doc_hash
from labeler.core.corpus.folder import Corpus
from labeler.core.display import BIDI
from labeler.core.errors import LabelError, StoreError
from labeler.core.labels import labelset
from labeler.core.store import Store
from labeler.core.text.graphemes import snap
from labeler.core.values import Boundary, Query, Span, Status
from tests.conftest import table_dump

FAMILY = "👩\u200d👩\u200d👧"
TEXTS = {
    "a.md": f"# Café\nRefunds within 30 days 😀 for {FAMILY} accounts.\n\tTabbed line.\n",
    "b/c.txt": "Gift cards never expire.\r\nNot even in leap years.\n",
}
CORPUS = Corpus.from_texts(TEXTS)
A = CORPUS.text("a.md")
C = CORPUS.text("b/c.txt")


def canonical_json_hash(queries: list[dict[str, Any]]) -> str:
    """§4, literally."""
    payload = json.dumps(queries, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def sample_queries() -> list[Query]:
    refund = A.index("30 days")
    return [
        Query(
            "q-0002",
            "Do gift cards expire?",
            boundary=Boundary.CONTROL,
            slices=("gift",),
            status=Status.LABELLED,
            evidence=(Span.from_text(C, "b/c.txt", 0, 24),),
        ),
        Query(
            "q-0001",
            "How long do refunds take?",
            boundary=Boundary.CONDITION_CONSEQUENCE,
            slices=("critical", "billing"),
            status=Status.REVIEWED,
            notes="checked twice",
            evidence=(
                Span.from_text(A, "a.md", refund, refund + 7),
                Span.from_text(A, "a.md", A.index(FAMILY), A.index(FAMILY) + 5),
            ),
        ),
        Query("q-0003", "What is the CEO's shoe size?", abstain=True, status=Status.REVIEWED),
    ]


def labelled_store(store: Store, corpus: Corpus = CORPUS) -> Store:
    store.bind(corpus.doc_hashes)
    labelset.import_queries(store, sample_queries(), corpus, annotator="ann")
    return store


def test_export_has_exactly_the_spec_shape(memory_store: Store) -> None:
    data = labelset.export(labelled_store(memory_store), CORPUS)
    assert list(data) == [
        "format",
        "corpus",
        "label_set_hash",
        "exported_at",
        "tool_version",
        "queries",
    ]
    assert data["format"] == "spanlab.labelset/1"
    assert data["corpus"] == {
        "hash": CORPUS.hash,
        "normalization": "nfc-lf/1",
        "documents": {"a.md": doc_hash(A), "b/c.txt": doc_hash(C)},
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["exported_at"])
    assert data["tool_version"] == "0.1.0"
    refund = A.index("30 days")
    family = A.index(FAMILY)
    expected_queries = [
        {
            "id": "q-0001",
            "text": "How long do refunds take?",
            "abstain": False,
            "boundary": "condition-consequence",
            "slices": ["billing", "critical"],
            "status": "reviewed",
            # Beyond the §4 example: notes ride along so export → import loses nothing.
            "notes": "checked twice",
            "evidence": [
                {
                    "doc": "a.md",
                    "start": 22,
                    "end": 29,
                    "quote": "30 days",
                    "prefix": "# Café\nRefunds within ",
                    "suffix": f" 😀 for {FAMILY} accounts.\n\tTabbed l",
                },
                {
                    "doc": "a.md",
                    "start": 36,
                    "end": 41,
                    "quote": FAMILY,
                    "prefix": "fé\nRefunds within 30 days 😀 for ",
                    "suffix": " accounts.\n\tTabbed line.\n",
                },
            ],
        },
        {
            "id": "q-0002",
            "text": "Do gift cards expire?",
            "abstain": False,
            "boundary": "control",
            "slices": ["gift"],
            "status": "labelled",
            "notes": "",
            "evidence": [
                {
                    "doc": "b/c.txt",
                    "start": 0,
                    "end": 24,
                    "quote": "Gift cards never expire.",
                    "prefix": "",
                    "suffix": "\nNot even in leap years.\n",
                }
            ],
        },
        {
            "id": "q-0003",
            "text": "What is the CEO's shoe size?",
            "abstain": True,
            "boundary": "other",
            "slices": [],
            "status": "reviewed",
            "notes": "",
            "evidence": [],
        },
    ]
    assert (refund, family) == (22, 36)
    assert data["queries"] == expected_queries
    assert data["label_set_hash"] == canonical_json_hash(expected_queries)


def test_export_refuses_while_a_span_is_stale(memory_store: Store) -> None:
    labelled_store(memory_store)
    changed = Corpus.from_texts({**TEXTS, "a.md": TEXTS["a.md"].replace("30 days", "45 days")})
    with pytest.raises(StoreError) as info:
        labelset.export(memory_store, changed)
    assert info.value.hint is not None and "spanlab review" in info.value.hint
    # Both spans of q-0001: the family's prefix holds "30 days" too.
    assert "2 span(s)" in info.value.message


def test_a_stored_lone_surrogate_is_a_clear_error_not_a_traceback(memory_store: Store) -> None:
    """A slice written before surrogates were refused (or by hand): export names it."""
    labelled_store(memory_store)
    with memory_store.write():
        memory_store.conn.execute(
            "UPDATE queries SET slices = ? WHERE id = 'q-0001'", (json.dumps(["x\udced"]),)
        )
    with pytest.raises(LabelError, match="query q-0001: slices holds a lone surrogate"):
        labelset.export(memory_store, Corpus.from_texts(TEXTS))


def test_export_refuses_while_a_span_is_orphaned(memory_store: Store) -> None:
    labelled_store(memory_store)
    with pytest.raises(StoreError, match="stale or orphaned"):
        labelset.export(memory_store, Corpus.from_texts({"a.md": TEXTS["a.md"]}))


def test_write_json_is_utf8_and_leaves_no_temporary_file(
    memory_store: Store, tmp_path: Path
) -> None:
    data = labelset.export(labelled_store(memory_store), CORPUS)
    out = tmp_path / "frozen.json"
    labelset.write_json(data, out)
    raw = out.read_text(encoding="utf-8")
    assert FAMILY in raw and raw.endswith("}\n")
    assert json.loads(raw) == data
    assert [p.name for p in tmp_path.iterdir()] == ["frozen.json"]


def test_read_round_trips_an_export(memory_store: Store, tmp_path: Path) -> None:
    data = labelset.export(labelled_store(memory_store), CORPUS)
    path = tmp_path / "frozen.json"
    labelset.write_json(data, path)
    read = labelset.read(path, CORPUS)
    assert read.corpus_hash == CORPUS.hash
    assert read.label_set_hash == data["label_set_hash"]
    assert [q.id for q in read.queries] == ["q-0001", "q-0002", "q-0003"]
    assert [labelset.query_json(q) for q in read.queries] == data["queries"]


def exported(store: Store) -> dict[str, Any]:
    return labelset.export(labelled_store(store), CORPUS)


def test_a_bad_quote_in_the_last_query_writes_nothing(memory_store: Store, tmp_path: Path) -> None:
    data = exported(Store.memory())
    data["queries"][-1] = {**data["queries"][1], "id": "q-0009"}
    data["queries"][-1]["evidence"] = [{**data["queries"][1]["evidence"][0], "quote": "Gift"}]
    data["label_set_hash"] = canonical_json_hash(data["queries"])
    path = tmp_path / "bad.json"
    labelset.write_json(data, path)
    memory_store.bind(CORPUS.doc_hashes)
    memory_store.add_query("Already here", annotator="ann")
    before = table_dump(memory_store)
    with pytest.raises(LabelError) as info:
        queries = labelset.read(path, CORPUS).queries
        labelset.import_queries(memory_store, queries, CORPUS, annotator="ann")
    assert info.value.file == str(path)
    assert (info.value.key, info.value.offset) == ("queries[2].evidence[0].quote", 0)
    assert table_dump(memory_store) == before


def test_import_queries_rolls_back_when_the_last_span_fails(memory_store: Store) -> None:
    memory_store.bind(CORPUS.doc_hashes)
    before = table_dump(memory_store)
    queries = [*sample_queries(), Query("q-0004", "Bad", evidence=(Span("a.md", 0, 4, "nope"),))]
    with pytest.raises(LabelError):
        labelset.import_queries(memory_store, queries, CORPUS, annotator="ann")
    assert table_dump(memory_store) == before


def test_label_set_for_another_corpus_is_refused_with_the_differences() -> None:
    data = exported(Store.memory())
    other = Corpus.from_texts({"a.md": TEXTS["a.md"].replace("Café", "Cafe"), "new.md": "New.\n"})
    with pytest.raises(LabelError) as info:
        labelset.parse(data, other)
    assert info.value.key == "corpus.hash"
    assert info.value.details == [
        "changed: a.md",
        "only in the corpus folder: new.md",
        "missing from the corpus folder: b/c.txt",
    ]
    assert info.value.hint is not None and "spanlab review" in info.value.hint
    assert CORPUS.hash in info.value.message and other.hash in info.value.message


def test_tampered_label_set_hash_is_refused() -> None:
    data = exported(Store.memory())
    data["queries"][0]["text"] = "How long do refunds really take?"
    with pytest.raises(LabelError, match="edited after export") as info:
        labelset.parse(data, CORPUS)
    assert info.value.key == "label_set_hash"


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "format": "spanlab.labelset/1",\n  "corpus": {,\n}\n', encoding="utf-8")
    with pytest.raises(LabelError) as info:
        labelset.read(path, CORPUS)
    assert (info.value.file, info.value.line) == (str(path), 3)
    assert str(info.value).startswith(f"{path}:3: not valid JSON")


def test_a_file_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"format": "caf\xe9"}')
    with pytest.raises(LabelError) as info:
        labelset.read(path, CORPUS)
    assert (info.value.file, info.value.offset) == (str(path), 15)


def mutate(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Set `data[...]` at a dotted path such as `queries.0.evidence.0.start` (None deletes)."""
    out = copy.deepcopy(data)
    *parents, last = path.split(".")
    node: Any = out
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if value is None:
        del node[int(last) if last.isdigit() else last]
    else:
        node[int(last) if last.isdigit() else last] = value
    out["label_set_hash"] = canonical_json_hash(out["queries"])
    return out


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        ("format", "spanlab.labelset/9", "format"),
        ("corpus.normalization", "nfd/1", "corpus.normalization"),
        ("queries.0.evidence.0.start", None, "queries[0].evidence[0].start"),
        ("queries.0.evidence.0.start", True, "queries[0].evidence[0].start"),
        ("queries.0.evidence.0.end", 9999, "queries[0].evidence[0].start"),
        ("queries.0.evidence.0.doc", "gone.md", "queries[0].evidence[0].doc"),
        ("queries.0.boundary", "diagonal", "queries[0].boundary"),
        ("queries.0.status", "done", "queries[0].status"),
        ("queries.0.slices", ["two words"], "queries[0].slices"),
        ("queries.0.id", "bad id", "queries[0].id"),
        ("queries.1.id", "q-0001", "queries[1].id"),
        ("queries.2.abstain", "yes", "queries[2].abstain"),
    ],
)
def test_schema_errors_name_the_key(path: str, value: Any, key: str) -> None:
    data = mutate(exported(Store.memory()), path, value)
    with pytest.raises(LabelError) as info:
        labelset.parse(data, CORPUS)
    assert info.value.key == key


def test_import_skips_identical_queries_and_refuses_conflicts(memory_store: Store) -> None:
    labelled_store(memory_store)
    assert labelset.import_queries(memory_store, sample_queries(), CORPUS, annotator="x") == 0
    changed = [Query("q-0001", "Reworded?"), Query("q-0100", "New one")]
    before = table_dump(memory_store)
    with pytest.raises(StoreError, match="q-0001") as info:
        labelset.import_queries(memory_store, changed, CORPUS, annotator="x")
    assert info.value.hint is not None and "--replace" in info.value.hint
    assert table_dump(memory_store) == before
    n = labelset.import_queries(memory_store, changed, CORPUS, annotator="x", replace_existing=True)
    assert n == 2
    assert memory_store.query("q-0001").text == "Reworded?"
    assert memory_store.query("q-0001").evidence == ()


def test_import_refuses_while_spans_wait_for_review(memory_store: Store) -> None:
    labelled_store(memory_store)
    changed = Corpus.from_texts({**TEXTS, "b/c.txt": "Gift cards expire.\n"})
    with pytest.raises(StoreError, match="wait for review"):
        labelset.import_queries(memory_store, [Query("q-0100", "New")], changed, annotator="x")


SPAN_DOCS = st.sampled_from(sorted(TEXTS))


@st.composite
def spans(draw: st.DrawFn) -> Span:
    doc = draw(SPAN_DOCS)
    text = CORPUS.text(doc)
    start = snap(text, draw(st.integers(0, len(text) - 1)), forward=False)
    end = snap(text, draw(st.integers(start + 1, len(text))), forward=True)
    return Span.from_text(text, doc, start, end)


STORABLE = st.characters(
    exclude_categories=["Cs", "Cc", "Zl", "Zp"], exclude_characters=BIDI
) | st.sampled_from("\n\t")
"""Any text a query may hold: everything but lone surrogates, controls other than newline
and tab, and bidi controls (labeler.core.display)."""


def _place(s: Span) -> tuple[str, int, int]:
    """A query holds one span per place: the store refuses duplicate evidence (§3)."""
    return (s.doc, s.start, s.end)


@st.composite
def queries(draw: st.DrawFn) -> list[Query]:
    ids = draw(st.lists(st.integers(1, 9999), unique=True, max_size=5))
    out = []
    for n in ids:
        abstain = draw(st.booleans())
        out.append(
            Query(
                f"q-{n:04d}",
                draw(st.text(STORABLE, min_size=1, max_size=20).filter(str.strip)),
                abstain=abstain,
                boundary=draw(st.sampled_from(list(Boundary))),
                slices=tuple(draw(st.lists(st.sampled_from(["critical", "lang:de", "t"])))),
                notes=draw(st.text(STORABLE, max_size=10)),
                status=draw(st.sampled_from(list(Status))),
                evidence=()
                if abstain
                else tuple(draw(st.lists(spans(), max_size=3, unique_by=_place))),
            )
        )
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_export_import_export_keeps_the_label_set_hash(qs: list[Query]) -> None:
    first = Store.memory()
    first.bind(CORPUS.doc_hashes)
    labelset.import_queries(first, qs, CORPUS, annotator="ann")
    once = labelset.export(first, CORPUS)
    parsed = labelset.parse(json.loads(json.dumps(once, ensure_ascii=False)), CORPUS)
    fresh = Store.memory()
    labelset.import_queries(fresh, parsed.queries, CORPUS, annotator="other")
    twice = labelset.export(fresh, CORPUS)
    assert twice["label_set_hash"] == once["label_set_hash"] == parsed.label_set_hash
    assert twice["queries"] == once["queries"]
    assert once["label_set_hash"] == canonical_json_hash(once["queries"])
    first.close()
    fresh.close()
