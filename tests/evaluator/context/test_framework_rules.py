"""The frameworks' units (§24) by hand: a window sent per hit without merging, auto-merging
when strictly more than the ratio of a parent's children is retrieved, the keys refused
naming `context.merge` / `context.merge_ratio`, and text located blind to whitespace."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.candidates import read
from evaluator.chunk import Chunk
from evaluator.chunking import chunk_table
from evaluator.chunking.spec import ContextSpec, SplitterSpec
from evaluator.metrics.sent import Sending
from evaluator.pipeline.units import sending
from evaluator.retrieval.base import Ranked
from evaluator.retrieval.locate import Ambiguous, locate
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError

TEXT = "abcdefghij" * 5


def built(context: ContextSpec, tmp_path: Path) -> tuple[dict[int, Chunk], Sending]:
    (tmp_path / "d.txt").write_text(TEXT, "utf-8")
    corpus = Corpus.read(tmp_path)
    spec = SplitterSpec("chars", 10, context=context)
    table = chunk_table(spec, corpus)
    units = sending(spec, table, corpus)
    assert units is not None
    return {c.start: c for c in table}, units


def places(units: tuple[Chunk, ...] | list[Chunk]) -> list[tuple[int, int]]:
    return [(u.start, u.end) for u in units]


def test_a_window_without_merging_is_sent_for_each_hit_repeats_and_all(tmp_path: Path) -> None:
    at, units = built(ContextSpec(window=1, merge=False), tmp_path)
    ranked = [Ranked(at[10], 0.9), Ranked(at[20], 0.8), Ranked(at[10 + 0], 0.1)]
    assert places(units.sent(ranked, 3)) == [(0, 30), (10, 40), (0, 30)]
    assert places([r.chunk for r in units.ranking(ranked)]) == [(0, 30), (10, 40), (0, 30)]
    at, merging = built(ContextSpec(window=1), tmp_path)
    assert places(merging.sent([Ranked(at[10], 0.9), Ranked(at[20], 0.8)], 2)) == [(0, 40)]


def test_auto_merging_needs_strictly_more_than_the_ratio(tmp_path: Path) -> None:
    parent = SplitterSpec("chars", 25)
    # parents 0..25 (children 0..10, 10..20, 20..25) and 25..50 (25..35, 35..45, 45..50)
    at, units = built(ContextSpec(parent=parent, merge_ratio=0.5), tmp_path)
    ranked = [Ranked(at[0], 0.9), Ranked(at[25], 0.8), Ranked(at[10], 0.5)]
    # 2 of 3 children > 0.5: the parent replaces them at their mean score 0.7, appended,
    # then all sorted by score: 25..35 (0.8) before the parent (0.7)
    assert places(units.sent(ranked, 3)) == [(25, 35), (0, 25)]
    assert places(units.sent(ranked, 2)) == [(0, 10), (25, 35)]  # 1 of 3: no merge
    assert places([r.chunk for r in units.ranking(ranked)]) == [(0, 10), (25, 35), (0, 25)]
    _, exact = built(ContextSpec(parent=parent, merge_ratio=2 / 3), tmp_path)
    assert places(exact.sent(ranked, 3)) == [(0, 10), (25, 35), (10, 20)]  # 2/3 is not more
    assert sorted(places(exact.sendable())) == [
        (0, 10), (0, 25), (10, 20), (20, 25), (25, 35), (25, 50), (35, 45), (45, 50),
    ]  # fmt: skip


def test_parents_between_merged_parents_are_filled_in_as_llama_index_does(
    tmp_path: Path,
) -> None:
    at, units = built(ContextSpec(parent=SplitterSpec("chars", 10), merge_ratio=0.5), tmp_path)
    # a 10-character parent holds one child: each hit merges into its parent at once; the
    # parents of 0..10 and 20..30 then sit side by side, so 10..20 is filled in at their
    # mean score (0.7) and sent although never retrieved
    ranked = [Ranked(at[0], 0.9), Ranked(at[20], 0.5)]
    assert places(units.sent(ranked, 2)) == [(0, 10), (10, 20), (20, 30)]


def test_text_is_located_exactly_first_then_blind_to_whitespace() -> None:
    text = "Kingdom. Orders placed\n\nbefore 2 p.m. apply."
    exact = locate(text, "Orders placed")
    assert exact is not None and (exact.start, exact.end, exact.normalised) == (9, 22, False)
    joined = locate(text, "Kingdom.  Orders placed\n\n before")  # LlamaIndex's join
    assert joined is not None and (joined.start, joined.end, joined.normalised) == (0, 30, True)
    assert locate(text, "Orders  placed nowhere") is None
    with pytest.raises(Ambiguous) as info:
        locate("a b. a  b.", "a b .")
    assert info.value.at == (0, 5) and info.value.normalised


CANDIDATES = """
[settings]
baseline = "w"
k = 3
retriever = "lexical"

[[candidate]]
name = "w"
splitter = "chars"
size = 10
CONTEXT
"""


@pytest.mark.parametrize(
    ("context", "key", "words"),
    [
        ("context = { window = 0, merge = false }", "context.window", "between 1 and"),
        ('context = { window = 1, merge = "no" }', "context.merge", "true or false"),
        ("context = { window = 1, merge_ratio = 0.5 }", "context.merge_ratio", "parent"),
        ("context = { merge = false }", "context", "one of window or parent, not 0"),
        ("[candidate.context]\nmerge = false\n[candidate.context.parent]\n"
         'splitter = "chars"\nsize = 30', "context.merge", "applies to a window"),
        *[(f'[candidate.context]\nmerge_ratio = {bad}\n[candidate.context.parent]\n'
           'splitter = "chars"\nsize = 30', "context.merge_ratio", "in (0, 1]")
          for bad in ("0", "1.5", "-0.1", "true", '"0.5"')],
        *[(f'[candidate.context]\nmerge_ratio = {bad}\n[candidate.context.parent]\n'
           'splitter = "chars"\nsize = 30', "candidate[0].context.merge_ratio", "finite")
          for bad in ("nan", "inf")],
        ("context = { window = 1, ratio = 0.5 }", "context.ratio", "unknown key 'ratio'"),
    ],
)  # fmt: skip
def test_bad_context_keys_are_refused_naming_the_key(
    tmp_path: Path, context: str, key: str, words: str
) -> None:
    path = tmp_path / "candidates.toml"
    path.write_text(CANDIDATES.replace("CONTEXT", context), "utf-8")
    with pytest.raises(ConfigError) as info:
        read(path)
    assert info.value.key == key
    assert words in str(info.value) and ("'w'" in str(info.value) or "candidate[0]" in key)


def test_a_ratio_of_one_is_accepted_and_recorded() -> None:
    spec = ContextSpec(parent=SplitterSpec("chars", 30), merge_ratio=1.0)
    assert spec.fingerprint_fields()["merge_ratio"] == 1.0
    assert ContextSpec.from_fields(spec.fingerprint_fields()) == spec
    window = ContextSpec(window=2, merge=False)
    assert window.fingerprint_fields() == {"window": 2, "merge": False}
    assert ContextSpec.from_fields(window.fingerprint_fields()) == window
