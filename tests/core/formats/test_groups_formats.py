"""Groups of alternatives (§18) through every format: carried where the format can, else
flattened and counted on export; export → import of a grouped set is the identity where
carried, and the store keeps groups through its own writes.

`x.md` and `y.md` both hold FACT (with an emoji before it in `y.md`, so UTF-16 units and
code points differ); q-0001's two copies are one group, and a third span is a group of its own.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.labels import labelset
from labeler.core.labels.exports import export_file
from labeler.core.store import Store
from labeler.core.values import Query, Span, Status

FACT = "Refunds are paid within 14 days."
CORPUS = Corpus.from_texts({
    "x.md": f"Intro.\n{FACT}\nAlso: cards are refunded.\n",
    "y.md": f"\U0001f389 Other words.\n{FACT}\n",
})  # fmt: skip


def span(doc: str, quote: str, group: int | None) -> Span:
    text = CORPUS.text(doc)
    start = text.index(quote)
    return replace(Span.from_text(text, doc, start, start + len(quote)), group=group)


GROUPED = Query(
    "q-0001", "When are refunds paid?", status=Status.LABELLED,
    evidence=(span("x.md", FACT, 1), span("y.md", FACT, 1),
              span("x.md", "cards are refunded", None)),
)  # fmt: skip
PLAIN = Query("q-0002", "Who refunds cards?", status=Status.LABELLED,
              evidence=(span("x.md", "cards are refunded", None),))  # fmt: skip


Placed = dict[str, set[tuple[str, int, int, int | None]]]


def placed(queries: tuple[Query, ...] | list[Query]) -> Placed:
    return {q.text: {(s.doc, s.start, s.end, s.group) for s in q.evidence} for q in queries}


def test_the_label_set_is_v2_with_groups_and_v1_without() -> None:
    grouped = labelset.to_json([GROUPED, PLAIN], CORPUS)
    assert grouped["format"] == "spanlab.labelset/2"
    assert [e.get("group") for e in grouped["queries"][0]["evidence"]] == [1, None, 1]
    assert labelset.to_json([PLAIN], CORPUS)["format"] == "spanlab.labelset/1"
    back = labelset.parse(grouped, CORPUS)
    assert back.queries == (GROUPED, PLAIN)
    assert [labelset.query_json(q) for q in back.queries] == grouped["queries"]


def test_a_v1_file_with_a_group_is_refused_naming_the_key() -> None:
    data = labelset.to_json([GROUPED], CORPUS)
    data["format"] = "spanlab.labelset/1"
    with pytest.raises(LabelError) as info:
        labelset.parse(data, CORPUS)
    assert info.value.key == "queries[0].evidence[0].group"
    assert info.value.message == (
        "'group' needs format 'spanlab.labelset/2', the file says 'spanlab.labelset/1'"
    )


def test_the_store_keeps_groups_and_exports_the_identity() -> None:
    store = Store.memory()
    store.bind(CORPUS.doc_hashes)
    labelset.import_queries(store, [GROUPED, PLAIN], CORPUS, annotator="ann")
    assert placed(store.queries()) == placed([GROUPED, PLAIN])
    exported = labelset.export(store, CORPUS)
    assert exported["format"] == "spanlab.labelset/2"
    assert placed(labelset.parse(exported, CORPUS).queries) == placed([GROUPED, PLAIN])


CARRIED = ("label-studio", "prodigy", "doccano")


@pytest.mark.parametrize("fmt", CARRIED)
def test_export_then_import_of_a_grouped_set_is_the_identity(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    formats.get(fmt).write([GROUPED, PLAIN], CORPUS, out)
    back = formats.get(fmt).read(out, CORPUS, existing=[])
    assert placed(back.queries) == placed([GROUPED, PLAIN])


FLATTENED = ("argilla", "squad", "chroma-csv")


@pytest.mark.parametrize("fmt", [*CARRIED, "qrels", *FLATTENED])
def test_export_says_how_many_groups_it_flattened(fmt: str, tmp_path: Path) -> None:
    store = Store.memory()
    store.bind(CORPUS.doc_hashes)
    labelset.import_queries(store, [GROUPED, PLAIN], CORPUS, annotator="ann")
    notes = export_file(store, CORPUS, tmp_path / "out", fmt).notes
    said = [n for n in notes if "flattened" in n]
    if fmt in formats.GROUPS:
        assert said == []
    else:
        assert said == [
            f"1 group(s) of alternatives flattened: {fmt} cannot say 'either copy will do', "
            "so every alternative is written as evidence of its own"
        ]


def test_every_format_is_either_carried_or_flattened() -> None:
    assert set(formats.GROUPS) == {"spanlab", *CARRIED, "qrels"}
    # Label Studio's JSON-MIN and CSV are read only; `queries` holds no evidence.
    assert set(formats.FORMATS) - set(formats.GROUPS) == {
        *FLATTENED,
        "label-studio-min",
        "label-studio-csv",
        "queries",
    }
