"""A plan of context and treatment candidates (§18, §19), and the work it does only once:
one cut shared by candidates that cut alike, each distinct text counted once, the oracle's
figures reused where every pool fits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from evaluator import candidates as cands
from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.pieces import Piece
from evaluator.chunking.tokenizers import MINILM, load_tokenizer
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.settings import MetricSettings
from evaluator.pipeline.cutting import cut
from evaluator.plan.ceiling import ceiling, ceilings
from evaluator.plan.counting import TextTokens, words_of
from evaluator.plan.figures import percentile
from evaluator.plan.holds import window_hold
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query, Span
from tests.evaluator.plan.seeds import SEED_002_CANDIDATES, seed_002

runner = CliRunner()

CONTEXT_CANDIDATES = (
    SEED_002_CANDIDATES.replace("size = 80\noverlap = 0", "size = 45\noverlap = 0")
    + """
[[candidate]]
name = "chars45-window1"
splitter = "chars"
size = 45
overlap = 0
context = { window = 1 }

[[candidate]]
name = "chars45-capped"
splitter = "chars"
size = 45
overlap = 0
max_per_source = 1

[[candidate]]
name = "chars45-parent200"
splitter = "chars"
size = 45
overlap = 0
[candidate.context.parent]
splitter = "chars"
size = 200
overlap = 0
"""
)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    found = seed_002(tmp_path / "seed-002")
    (found / "candidates.toml").write_text(CONTEXT_CANDIDATES, encoding="utf-8")
    monkeypatch.chdir(found)
    return found


def plan_json() -> dict[str, Any]:
    result = runner.invoke(app, ["plan", "candidates.toml", "--labels", "labels.json", "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_a_shared_cut_gives_each_candidate_the_chunks_its_own_cut_gives(folder: Path) -> None:
    cfile = cands.read(Path("candidates.toml"))
    corpus = Corpus.read(Path("corpus"))
    shared, _ = cut(cfile, corpus, share=True)
    alone, _ = cut(cfile, corpus)
    assert {n: list(t) for n, t in shared.items()} == {n: list(t) for n, t in alone.items()}
    window, base = shared["chars45-window1"], shared["chars80-ov0"]
    assert window.starts is base.starts  # not cut again
    assert window[0].id != base[0].id  # yet its ids are its own
    assert shared["chars45-parent200"].starts is not base.starts  # children cut in parents


def test_a_window_sends_what_holds_the_span_its_chunks_cut(folder: Path) -> None:
    data = plan_json()
    by_name = {c["name"]: c for c in data["candidates"]}
    assert by_name["chars45-window1"]["splitter"] == "chars 45/0, window 1"
    assert by_name["chars45-capped"]["splitter"] == "chars 45/0, max_per_source 1"
    assert by_name["chars45-parent200"]["splitter"] == "chars 45/0, parent chars 200/0"
    noon = next(s for s in data["spans"] if s["query"] == "noon")
    assert [c["candidate"] for c in noon["cuts"]] == ["chars80-ov0", "chars45-capped"]
    window = by_name["chars45-window1"]
    assert window["figures"] == by_name["chars80-ov0"]["figures"]  # the index is the same
    assert window["sent_tokens_mean"] > window["figures"]["tokens_mean"]
    oracle = {
        c["rule"]: c["recall"]
        for c in window["ceilings"]
        if c["chunks"] is None and c["budget"] is None
    }
    assert oracle == {"chunk": 1.0, "union": 1.0}
    base = by_name["chars80-ov0"]
    assert base["ceilings"] == by_name["chars45-capped"]["ceilings"]  # the chunking's ceiling


def test_the_least_window_that_holds_a_range() -> None:
    chunks = [(0, 10), (10, 20), (20, 30), (30, 40)]
    found = window_hold(chunks, 1, 5, 35, 1.0)
    assert found.words == "window 1 cannot hold it: window ≥ 2 holds it"
    beyond = window_hold(chunks, 1, 5, 45, 1.0)
    assert beyond.words == (
        "window 1 cannot hold it: no window in its document does; a structural split"
    )


class SplitWords:
    """A tokenizer of whitespace-split words that records what it is asked to count."""

    name = "split"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def offsets(self, text: str) -> list[tuple[int, int]]:
        raise AssertionError("a count needs no offsets")

    def count(self, text: str) -> int:
        self.asked.append(text)
        return len(text.split())


def test_each_distinct_text_is_counted_once_and_as_the_runs_counter_counts() -> None:
    texts = {"d": "one two three four five six"}
    table = ChunkTable.build("c", "f", [("d", [Piece(0, 7), Piece(8, 18, "Head line"),
                                               Piece(0, 7)])])  # fmt: skip
    tokenizer = SplitWords()
    counts = TextTokens(tokenizer, texts)
    run = TokenCounter(lambda t: len(t.split()), texts)
    assert counts.of_table(table).tolist() == [run(c) for c in table] == [2, 4, 2]
    assert counts.of_chunks([Chunk("x", "d", 8, 18, "Head line")]).tolist() == [4]
    assert sorted(tokenizer.asked) == ["Head line", "one two", "three four"]


HOSTILE_TEXT = (
    "Héllo wörld\u0085next ab\x01cd 中文字 naïve e\u0301té x" + "y" * 130 + " end. Ｆｕｌｌ 👍🏽 "
    "R|efunds\u200b zero\u00a0nbsp tab\tx, (don't) e-mail: a@b.c «quoted» 1,000.50 ¿qué?\n"
)


def test_ranges_read_from_one_encoding_count_as_their_own_texts() -> None:
    # MiniLM cuts each word alone: a range's count is read from the document's words, and
    # only the pieces of words its edges cut are encoded. It must equal counting the text.
    tokenizer = load_tokenizer(MINILM)
    assert words_of(tokenizer) is not None
    texts = {"d": HOSTILE_TEXT * 3}
    n = len(texts["d"])
    ranges = [(a, b) for a in range(0, n, 7) for b in (a + 1, a + 13, a + 61, n) if b <= n]
    starts, ends = [a for a, _ in ranges], [b for _, b in ranges]
    counted = TextTokens(tokenizer, texts).of_ranges(["d"] * len(ranges), starts, ends)
    assert counted == [tokenizer.count(texts["d"][a:b]) for a, b in ranges]


def test_the_oracles_figures_stand_for_every_count_that_fits_every_pool() -> None:
    text = "alpha beta gamma delta"
    spans = (Span.from_text(text, "d", 0, 5), Span.from_text(text, "d", 17, 22))
    q = Query("q", "x", evidence=spans)
    index = ChunkIndex.build([Chunk("1", "d", 0, 11), Chunk("2", "d", 11, 22)])
    counter = TokenCounter(len, {"d": text})
    settings = MetricSettings(k=1)
    found = ceilings([q], index, settings, counter, (1, 2, 5, None))
    for got in found:
        ruled = MetricSettings(k=1, match=got.rule)
        assert got == ceiling([q], index, ruled, counter, got.chunks)


def test_the_percentiles_are_numpys() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 10, 181):
        values = rng.integers(0, 300, n)
        for q in (50, 95):
            assert percentile(np.sort(values), q) == float(np.percentile(values, q))
