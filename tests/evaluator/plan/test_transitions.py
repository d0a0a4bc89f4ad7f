"""Transitions to label (issue 33): each kind found in hand-made markdown, those a span covers
left out, ranking by the candidates' cuts, and the hostile documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.pipeline.transitions import cut_offsets, project_transitions
from evaluator.plan.transitions import (
    REACH,
    Transition,
    find_transitions,
    ranked,
    transitions_to_label,
    unlabelled,
)
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Boundary

DOC = (
    "# Refunds\n"  # 0..10
    "\n"
    "Refunds take five days. Cards are credited later.\n"  # 11..61
    "\n"
    "You need these:\n"  # 62..78
    "\n"
    "- the receipt;\n"  # 79..94
    "- the box.\n"
    "\n"
    "| Plan | Price |\n"  # 106..122
    "|------|-------|\n"
    "| Pro  | 9     |\n"  # 140..156
    "\n"
    "Call it like this:\n"  # 158..177
    "\n"
    "```bash\n"  # 178
    "curl https://x\n"
    "```\n"
)
CHARS = """\
[settings]
baseline = "c40"
retriever = "lexical"

[[candidate]]
name = "c40"
splitter = "chars"
size = 40
overlap = 0

[[candidate]]
name = "whole"
splitter = "chars"
size = 4000
overlap = 0
"""


def passages(found: list[Transition], text: str) -> list[tuple[str, str, str]]:
    return [(t.kind.value, text[t.start : t.at], text[t.at : t.end]) for t in found]


def test_each_kind_straddles_its_transition() -> None:
    assert passages(find_transitions("d.md", DOC), DOC) == [
        ("heading-paragraph", "Refunds\n\n", "Refunds take five days."),
        ("list-intro-item", "You need these:\n\n- ", "the receipt;"),
        ("table-header-row", "| Plan | Price |\n|------|-------|\n", "| Pro  | 9     |"),
        ("code-explanation-snippet", "Call it like this:\n\n", "```bash\ncurl https://x"),
    ]


def test_offsets_are_the_documents_code_points() -> None:
    found = find_transitions("d.md", DOC)
    assert [(t.start, t.at, t.end) for t in found] == [
        (2, 11, 34), (62, 81, 93), (106, 140, 156), (158, 178, 200)
    ]  # fmt: skip


def test_a_list_intro_in_the_same_paragraph_and_an_ordered_list() -> None:
    text = "Pack the following:\n1. the device;\n2. the base.\n"
    assert passages(find_transitions("d.md", text), text) == [
        ("list-intro-item", "Pack the following:\n1. ", "the device;")
    ]


def test_the_last_sentence_explains_the_code() -> None:
    text = "Keys rotate. Send it so:\n\n~~~\nPOST /keys\nbody\n~~~\n"
    assert passages(find_transitions("d.md", text), text) == [
        ("code-explanation-snippet", "Send it so:\n\n", "~~~\nPOST /keys\nbody")
    ]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty document"),
        ("Just one paragraph. No structure at all.\n", "plain prose"),
        ("# A\n## B\n# C\n", "headings only: no paragraph after any"),
        ("# Title\n", "a heading at the end"),
        ("| a | b |\n|---|---|\n", "a table with a header and no row"),
        ("```\ncode\n```\n", "code with no explanation before it"),
        ("Explain:\n```\n```\n", "an empty code block"),
        ("Options:\nnone here\n", "a colon with no list after it"),
        ("Options:", "a colon at the very end"),
        ("```\nintro:\n- not a list\n```\n", "a colon line inside code"),
        ("\n\n\n", "blank lines only"),
    ],
)
def test_no_transition(text: str, why: str) -> None:
    assert find_transitions("d.md", text) == [], why


def test_a_2_mb_single_line_document_has_none_and_is_bounded() -> None:
    line = "word " * 400_000 + "end: - x"
    assert find_transitions("big.txt", line) == []
    heading = "# Big\n" + "a" * 2_000_000
    (t,) = find_transitions("big.md", heading)
    assert t.end - t.at <= REACH


def test_a_span_anywhere_in_a_passage_leaves_it_out() -> None:
    found = find_transitions("d.md", DOC)
    kept = unlabelled(found, {"d.md": [(33, 34), (199, 300), (93, 106)], "other.md": [(0, 999)]})
    assert [t.kind for t in kept] == [Boundary.LIST_INTRO_ITEM, Boundary.TABLE_HEADER_ROW]


def test_cut_passages_rank_first_then_document_order() -> None:
    found = find_transitions("d.md", DOC)
    cuts = {"a": {"d.md": [0, 120, 200]}, "b": {"d.md": [0, 130, 158, 178]}}
    order = [(t.kind.value, t.cuts) for t in ranked(found, cuts)]
    assert order == [
        ("table-header-row", ("a", "b")),
        ("code-explanation-snippet", ("b",)),
        ("heading-paragraph", ()),
        ("list-intro-item", ()),
    ]  # 158 and 200 are the code passage's own edges: not inside it


def test_project_transitions_rank_by_the_candidates_file(tmp_path: Path) -> None:
    (tmp_path / "candidates.toml").write_text(CHARS, encoding="utf-8")
    corpus = Corpus.from_texts({"d.md": DOC})
    found = project_transitions(corpus, {}, tmp_path / "candidates.toml")
    assert found is not None
    assert found.candidates == ("c40", "whole")
    assert found.note == "most cut first (2 candidates in candidates.toml)"
    # c40 cuts at 40, 80, 120, 160: inside every passage but the heading's (2..34)
    assert [(t.start, t.cuts) for t in found.transitions] == [
        (62, ("c40",)), (106, ("c40",)), (158, ("c40",)), (2, ())
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("content", "note"),
    [
        (None, "no candidates file: in document order"),
        ("[settings\n", "candidates.toml: "),
        ('[settings]\nbaseline = "x"\n', "candidates.toml: "),
    ],
)
def test_no_usable_candidates_file_lists_in_document_order(
    tmp_path: Path, content: str | None, note: str
) -> None:
    path = tmp_path / "candidates.toml"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    found = project_transitions(Corpus.from_texts({"d.md": DOC}), {}, path)
    assert found is not None
    assert found.note.startswith(note) and found.note.endswith("in document order")
    assert found.candidates == ()
    assert [t.start for t in found.transitions] == [2, 62, 106, 158]


def test_a_stop_between_candidates_ends_the_cutting(tmp_path: Path) -> None:
    (tmp_path / "candidates.toml").write_text(CHARS, encoding="utf-8")
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) == 2  # after the first candidate

    corpus = Corpus.from_texts({"d.md": DOC})
    assert project_transitions(corpus, {}, tmp_path / "candidates.toml", stop) is None
    assert len(asked) == 2


def test_one_span_over_everything_leaves_nothing_to_label() -> None:
    assert transitions_to_label({"d.md": DOC}, {"d.md": [(0, 300)]}) == []
    assert cut_offsets({}) == {}
