"""Span edges on grapheme cluster boundaries (§13): the one rule, and every reader using it."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.labels import labelset
from labeler.core.text.graphemes import check_edges, is_boundary, snap, whole_clusters
from labeler.core.values import Span

# (text, offsets that cut a cluster, what the cut is between)
CUTS = [
    ("cafe\u0301 ok", [4], "e and its combining acute"),
    ("q\u0307 x", [1], "q and its dot (no precomposed form, NFC keeps two)"),
    ("a\u0323\u0307b", [1, 2], "a and two marks"),
    ("\U0001f469\u200d\U0001f469\u200d\U0001f467!", [1, 2, 3, 4], "inside a ZWJ family"),
    ("\U0001f44d\U0001f3fd", [1], "thumbs up and its skin tone"),
    ("\U0001f1e9\U0001f1ea\U0001f1eb\U0001f1f7", [1, 3], "inside each flag"),
    ("\u1100\u1161\u11a8", [1, 2], "Hangul jamo of one syllable"),
    ("\u0915\u094d\u0937", [1, 2], "a Devanagari conjunct"),
    ("1\ufe0f\u20e3", [1, 2], "a keycap"),
    ("a\r\nb", [2], "CR and LF"),
]
# (text, offsets that are boundaries)
WHOLE = [
    ("cafe\u0301 ok", [0, 3, 5, 6, 8]),
    ("\U0001f469\u200d\U0001f469\u200d\U0001f467!", [0, 5, 6]),
    ("\U0001f1e9\U0001f1ea\U0001f1eb\U0001f1f7", [0, 2, 4]),
    ("ab\ncd", [0, 1, 2, 3, 4, 5]),
    ("\n\u0301x", [1, 2]),  # a mark after a line feed starts its own cluster
]


@pytest.mark.parametrize(("text", "cuts", "what"), CUTS, ids=[c[2] for c in CUTS])
def test_offsets_inside_a_cluster_are_not_boundaries(text: str, cuts: list[int], what: str) -> None:
    for at in cuts:
        assert not is_boundary(text, at), (what, at)
        left, right = snap(text, at, forward=False), snap(text, at, forward=True)
        assert left < at < right and is_boundary(text, left) and is_boundary(text, right)


@pytest.mark.parametrize(("text", "offsets"), WHOLE)
def test_offsets_between_clusters_are_boundaries(text: str, offsets: list[int]) -> None:
    assert [at for at in offsets if is_boundary(text, at)] == offsets


def test_the_refusal_names_the_edge_the_offset_and_where_to_move() -> None:
    with pytest.raises(LabelError) as caught:
        check_edges("cafe\u0301 ok", "a.md", 4, 7)
    assert (caught.value.key, caught.value.offset) == ("start", 4)
    assert "a span edge must lie at 3 or 5" in caught.value.message
    assert "U+0065 U+0301" in caught.value.message
    with pytest.raises(LabelError) as caught:
        Span.from_text("q\u0307 x", "a.md", 0, 1)
    assert (caught.value.key, caught.value.offset) == ("end", 1)


@given(st.text(st.sampled_from(["a", "e", "\u0301", "\u200d", "\U0001f469", "\n", "\U0001f1e9",
                                "\u1100", "\u1161", " "]), max_size=30))  # fmt: skip
def test_boundaries_agree_with_segmenting_the_whole_text(text: str) -> None:
    import regex

    whole = {0, *(m.end() for m in regex.finditer(r"\X", text))}
    assert {i for i in range(len(text) + 1) if is_boundary(text, i)} == whole


TEXT = "Ok cafe\u0301 and q\u0307 end.\n"
CORPUS = Corpus.from_texts({"a.md": TEXT})
MARK = TEXT.index("\u0301")  # canonical: NFC composes e + U+0301 into é, so find it again
DOT = TEXT.index("\u0307")


def label_set(start: int, end: int) -> dict[str, Any]:
    canon = CORPUS.text("a.md")
    span = {"doc": "a.md", "start": start, "end": end, "quote": canon[start:end],
            "prefix": "", "suffix": ""}  # fmt: skip
    query = {"id": "q-0001", "text": "Which?", "abstain": False, "boundary": "other",
             "slices": [], "status": "labelled", "evidence": [span]}  # fmt: skip
    return {"format": "spanlab.labelset/1", "queries": [query],
            "corpus": {"hash": CORPUS.hash, "documents": CORPUS.doc_hashes}}  # fmt: skip


def test_the_text_keeps_q_and_its_dot_apart_after_nfc() -> None:
    canon = CORPUS.text("a.md")
    assert "\u0301" not in canon and "q\u0307" in canon
    assert canon.index("q\u0307") + 1 == canon.index("\u0307")


@pytest.mark.parametrize(
    ("reader", "content", "key"),
    [
        ("spanlab", label_set(CORPUS.text("a.md").index("\u0307"), 20),
         "queries[0].evidence[0].start"),
        ("spanlab", label_set(3, CORPUS.text("a.md").index("\u0307")),
         "queries[0].evidence[0].end"),
        ("label-studio", [{"data": {"text": TEXT, "question": "Q?"}, "annotations": [{"result": [
            {"type": "labels", "value": {"start": 0, "end": DOT}}]}]}],
         "[0].annotations[0].result[0].value"),
        ("label-studio", [{"data": {"text": TEXT, "question": "Q?"}, "annotations": [{"result": [
            {"type": "labels", "value": {"start": MARK, "end": MARK + 4}}]}]}],
         "[0].annotations[0].result[0].value"),
        ("squad", {"data": [{"title": "a.md", "paragraphs": [{"context": TEXT, "qas": [
            {"id": "s", "question": "Q?", "answers": [{"text": TEXT[3:DOT], "answer_start": 3}]}
        ]}]}]}, "data[0].paragraphs[0].qas[0].answers[0]"),
    ],
)  # fmt: skip
def test_every_reader_refuses_a_span_that_cuts_a_cluster(
    tmp_path: Path, reader: str, content: Any, key: str
) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    # A format that states the quote (SQuAD's answer text) meets the quote check first.
    words = "quote does not match" if reader == "squad" else "cuts the character"
    with pytest.raises(LabelError, match=words) as caught:
        if reader == "spanlab":
            labelset.read(path, CORPUS)
        else:
            formats.get(reader).read(path, CORPUS, existing=())
    assert caught.value.key == key
    assert caught.value.offset is not None


def test_chroma_csv_refuses_a_span_that_cuts_a_cluster(tmp_path: Path) -> None:
    path = tmp_path / "in.csv"
    canon = CORPUS.text("a.md")  # no folder: the file's text is the canonical text
    dot = canon.index("\u0307")
    refs = json.dumps([{"content": canon[3:dot], "start_index": 3, "end_index": dot}])
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([["question", "references", "corpus_id"], ["Q?", refs, "a"]])
    with pytest.raises(LabelError, match="cuts the character") as caught:
        formats.get("chroma-csv").read(path, CORPUS, existing=())
    assert caught.value.line == 2


def test_a_selection_widens_to_whole_clusters() -> None:

    text = "ok q\u0307 \U0001f469\u200d\U0001f4bb!"
    assert whole_clusters(text, 4, 4) == (3, 5)
    assert whole_clusters(text, 3, 8) == (3, 9)
    assert whole_clusters(text, 0, 2) == (0, 2)


# -- whole clusters around a rough selection (find, mouse, keyboard) ----------------------

FAMILY3 = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
"""man ZWJ woman ZWJ girl: five code points, one cluster."""


@pytest.mark.parametrize(
    ("text", "start", "end", "widened"),
    [
        ("(q\u0307) x", 0, 2, (0, 3)),  # q + combining dot above stays whole
        ("Cafe\u0301!", 3, 4, (3, 5)),
        (f"a{FAMILY3}b", 2, 3, (1, 6)),
        ("\U0001f1eb\U0001f1f7 ok", 1, 1, (0, 2)),  # a flag is two regional indicators
        ("a\r\nb", 2, 2, (1, 3)),
        ("plain", 1, 3, (1, 3)),
        ("", 0, 0, (0, 0)),
    ],
)
def test_whole_clusters_widens_a_rough_selection(
    text: str, start: int, end: int, widened: tuple[int, int]
) -> None:
    assert whole_clusters(text, start, end) == widened


@given(st.text(max_size=30), st.integers(0, 30), st.integers(0, 30))
def test_whole_clusters_only_grows_and_is_idempotent(text: str, a: int, b: int) -> None:
    lo, hi = sorted((min(a, len(text)), min(b, len(text))))
    start, end = whole_clusters(text, lo, hi)
    assert 0 <= start <= lo <= hi <= end <= len(text)
    assert whole_clusters(text, start, end) == (start, end)
