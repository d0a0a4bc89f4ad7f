"""A run does no needless work (§12, §17): warm latency passes only when a gate or
`--latency` asks, every chunk's tokens counted once (the measures read retrieved chunks'
counts from their table), and the plan `eval` prints is the plan of the cut it runs.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

from evaluator.candidates import parse
from evaluator.chunk import Chunk
from evaluator.chunking.tokenizers import count_many, load_tokenizer
from evaluator.metrics import TokenCounter
from evaluator.pipeline import RunOptions, run_evaluation
from evaluator.pipeline.cutting import cut
from evaluator.pipeline.latency import NOT_MEASURED, asked
from evaluator.pipeline.plan import plan_corpus
from evaluator.pipeline.tokens import prime_from_table, table_counts
from evaluator.plan.model import Plan
from labeler.core.corpus.folder import Corpus
from tests.evaluator.runs.conftest import CANDIDATES, DOCS, queries

WARM = ("query_p50_ms", "query_p95_ms", "query_passes", "query_kind")


def run(gates: dict[str, Any] | None = None, **options: Any) -> Any:
    table = copy.deepcopy(CANDIDATES)
    if gates is not None:
        table["gates"] = gates
    corpus = Corpus.from_texts(DOCS)
    cfile = parse(table, file="candidates.toml", digest="sha256:f00")
    return run_evaluation(cfile, corpus, queries(corpus), label_corpus_hash=corpus.hash,
                          label_set_hash="sha256:labels",
                          options=RunOptions(**options))  # fmt: skip


def test_no_warm_pass_runs_unless_asked_and_run_json_says_so() -> None:
    result = run()
    assert result.context_budget["latency"] == NOT_MEASURED
    assert NOT_MEASURED["measured"] is False
    for cand in result.runs.values():
        assert not any(key in cand.timings for key in WARM)
        assert cand.timings["query_first_pass_p95_ms"] is not None  # the one pass it needs
        assert cand.metrics()["query_latency_p95_ms"] is None


def test_latency_flag_or_a_latency_gate_in_any_scope_times_the_warm_passes() -> None:
    for result in (run(latency=True),
                   run({"slice": {"critical": {"max_latency_p95_ratio": 1000.0}}})):  # fmt: skip
        assert result.context_budget["latency"] == {"repeats": 3, "shuffled_by_seed": 0}
        for cand in result.runs.values():
            assert cand.timings["query_passes"] == 3 and cand.timings["query_kind"] == "warm"
            assert cand.metrics()["query_latency_p95_ms"] is not None
    gated = run({"max_latency_p95_ratio": 1000.0})
    assert [g.passed for g in gated.gates] == [True]  # measured, so judged


def test_asked_reads_every_scope() -> None:
    cfile = parse(CANDIDATES, file="c.toml", digest="sha256:0")
    assert not asked(cfile.gates, False) and asked(cfile.gates, True)
    table = copy.deepcopy(CANDIDATES)
    table["gates"] = {"pattern": {"table-header-row": {"max_latency_p95_ratio": 2.0}}}
    assert asked(parse(table, file="c.toml", digest="sha256:0").gates, False)


def test_table_counts_equal_counting_each_chunk_and_retrieved_ones_are_read_not_encoded() -> None:
    corpus = Corpus.from_texts(DOCS | {"long.md": "word " * 3000})
    cfile = parse(CANDIDATES, file="c.toml", digest="sha256:0")
    tables, _ = cut(cfile, corpus, share=True)
    tokenizer = load_tokenizer("minilm")
    texts = corpus.texts()
    counter = TokenCounter(tokenizer.count, texts)
    found = table_counts(tokenizer, texts, tables, counter)
    for name, table in tables.items():
        assert found[name].tolist() == [counter(c) for c in table]  # encoded one by one
        assert list(counter.counts(table, lambda _: [])) == found[name].tolist()  # read

    calls: list[int] = []

    def counting(many: list[str]) -> list[int]:
        calls.append(len(many))
        return count_many(tokenizer, many)

    fresh = TokenCounter(tokenizer.count, texts)
    table_counts(tokenizer, texts, tables, fresh)
    table = tables["c30"]
    picked = [table[0], table[5], table[len(table) - 1]]
    other = Chunk("elsewhere", "long.md", 0, 10, prefix="# Heading")  # not in the table
    prime_from_table(fresh, [*picked, other], table, counting)
    assert calls == [1, 1]  # only `other`'s text and its prefix reached the tokenizer
    assert [fresh(c) for c in picked] == [int(found["c30"][i]) for i in (0, 5, len(table) - 1)]
    assert fresh(other) == tokenizer.count("word word ") + tokenizer.count("# Heading")


def test_eval_plans_the_cut_it_runs_as_plan_does() -> None:
    corpus = Corpus.from_texts(DOCS)
    cfile = parse(CANDIDATES, file="candidates.toml", digest="sha256:f00")
    planned: list[Plan] = []
    run_evaluation(cfile, corpus, queries(corpus), label_corpus_hash=corpus.hash,
                   label_set_hash="sha256:labels", planned=planned.append)  # fmt: skip
    assert planned == [plan_corpus(cfile, corpus, queries(corpus), None)]
    assert (
        planned[0].candidates[1].figures.chunk_count,
        planned[0].candidates[1].figures.indexed_tokens,
    ) == (12, 81)


def test_counts_keep_a_few_documents_words_not_the_corpus() -> None:
    from evaluator.plan.counting import KEPT_DOCS, TextTokens

    docs = {f"d{i:02}.md": f"document {i} " * 50 for i in range(12)}
    corpus = Corpus.from_texts(docs)
    cfile = parse(CANDIDATES, file="c.toml", digest="sha256:0")
    tables, _ = cut(cfile, corpus, share=True)
    counts = TextTokens(load_tokenizer("minilm"), corpus.texts())
    found = counts.of_tables(tables)
    assert len(counts._docs) == KEPT_DOCS == 4
    counter = TokenCounter(functools.partial(load_tokenizer("minilm").count), corpus.texts())
    assert found["c30"].tolist() == [counter(c) for c in tables["c30"]]


def test_one_embedded_chroma_client_per_folder(tmp_path: Path) -> None:
    """Every candidate reuses the folder's client (seven took 3.1 s of a warm run); a
    folder whose database was removed and made again gets a client of its own."""
    import shutil

    from evaluator.retrieval.chroma import connect

    first = connect(None, str(tmp_path / "chroma"))
    assert connect(None, str(tmp_path / "chroma")) is first
    assert connect(None, str(tmp_path / "other")) is not first
    first.create_collection("kept")
    shutil.rmtree(tmp_path / "chroma")
    (tmp_path / "chroma").mkdir()
    (tmp_path / "chroma" / "placeholder").write_text("")  # a new inode for the database
    again = connect(None, str(tmp_path / "chroma"))
    assert again is not first


def test_report_md_says_when_warm_latency_was_not_measured() -> None:
    from evaluator.pipeline.record import run_file
    from evaluator.runs.report import report_md

    note = ("Warm latency was not measured: no `max_latency_p95_ratio` gate and no "
            "`--latency` asked for it.")  # fmt: skip
    assert note in report_md(run_file(run(), include_text=False)).splitlines()
    assert note not in report_md(run_file(run(latency=True), include_text=False))
