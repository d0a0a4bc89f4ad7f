"""The demo at k and at a context budget (§17, issue 29): the default decides at budget,
`tok256-ov64` wins at k only by sending more context and is flagged, `markdown-200` still
wins at budget, and a prompt-token gate at k fails `tok256-ov64`.

The budget figures are recomputed from the run folder alone — run.json's ranked offsets
and evidence, the corpus, and the tokenizer's own files through `tokenizers` — without
calling the evaluator's measuring code.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer

from evaluator.candidate_gates import Gates
from evaluator.candidates import read, with_retriever
from evaluator.chunking.tokenizers import minilm_dir
from evaluator.pipeline.options import RunOptions
from evaluator.pipeline.record import run_file
from evaluator.pipeline.result import RunResult
from evaluator.pipeline.run import run_evaluation, run_gates
from evaluator.runs.budget_text import flags, verdict_pair
from evaluator.runs.folder import write_run
from evaluator.runs.model import RunFile, read_run
from evaluator.runs.report import report_md
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.resources import bundled

DEMO = bundled("data/demo")
TOKENS = ("tok128-ov32", "tok128-ov0", "tok256-ov64")
"""The demo's candidates without prefixes: recomputable from offsets and text alone."""
CHUNKINGS = (*TOKENS, "markdown-200")
"""The demo's four chunkings, the candidates issue 29 speaks of (the context-unit and MMR
candidates send other things and are judged in their own tests)."""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, RunFile, Path]:
    corpus = Corpus.read(DEMO / "corpus")
    queries = labelset.read(DEMO / "labels.json", corpus).queries
    cfile = with_retriever(read(DEMO / "candidates.toml"), "exact")
    cfile = replace(cfile, candidates=tuple(c for c in cfile.candidates if c.name in CHUNKINGS))
    tmp = tmp_path_factory.mktemp("demo")
    result = run_evaluation(cfile, corpus, queries, label_corpus_hash=corpus.hash,
                            label_set_hash="sha256:demo",
                            options=RunOptions(cache_path=tmp / "cache.db",
                                               progress=False))  # fmt: skip
    folder = write_run(run_file(result, include_text=False), tmp / "runs")
    return result, read_run(folder), folder


def test_the_default_decides_at_budget_and_flags_tok256(
    demo: tuple[RunResult, RunFile, Path],
) -> None:
    _, run, _ = demo
    assert run.decide == "budget"
    assert run.manifest.context_budget["decide_from"] == "default"
    assert run.manifest.context_budget["size_spread"] > 0.10
    assert run.passed_on("tok256-ov64", "k") and not run.passed_on("tok256-ov64", "budget")
    assert not run.passed_for("tok256-ov64")  # the verdict is the deciding basis's
    assert run.passed_on("markdown-200", "budget") and run.passed_for("markdown-200")
    assert verdict_pair(run, "tok256-ov64") == (
        f"PASS at k = 5 · FAIL at budget {run.budget:,} (decides)"
    )
    [flagged] = flags(run)
    assert flagged.startswith("tok256-ov64: ")
    assert "wins at k = 5 by sending 1.9× the context" in flagged
    report = report_md(run)
    assert flagged in report and "```mermaid" in report and "xychart-beta" in report


def test_a_prompt_token_gate_at_k_fails_tok256(demo: tuple[RunResult, RunFile, Path]) -> None:
    result, _, _ = demo
    gated = replace(result.candidates_file, gates=Gates({"max_prompt_tokens_ratio": 1.5}))
    at_k = run_gates(gated, result.runs, result.comparisons, False)
    failed = {g.candidate: g.value for g in at_k if not g.passed}
    assert set(failed) == {"tok256-ov64"}
    assert failed["tok256-ov64"] == pytest.approx(1178.2 / 614.6, abs=0.01)


def _tokenizer() -> Tokenizer:
    tok = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def _matches(chunk: list[Any], span: dict[str, Any], threshold: float) -> bool:
    doc, start, end = str(chunk[1]), int(chunk[2]), int(chunk[3])
    s_start, s_end = int(span["start"]), int(span["end"])
    if doc != str(span["doc"]):
        return False
    if start <= s_start and s_end <= end:
        return True
    shared = min(end, s_end) - max(start, s_start)
    return shared > 0 and shared / (s_end - s_start) >= threshold


def _groups_found(sent: list[Any], evidence: list[dict[str, Any]]) -> dict[object, bool]:
    """Per group of alternatives (§18; a span without `group` is its own), whether a sent
    chunk matches any of its spans."""
    found: dict[object, bool] = {}
    for n, span in enumerate(evidence):
        key = ("group", span["group"]) if "group" in span else ("span", n)
        found[key] = found.get(key, False) or any(_matches(c, span, 0.8) for c in sent)
    return found


def _at_budget(data: dict[str, Any], name: str, budget: int, count: Any) -> dict[str, float]:
    """recall, hit and prompt tokens at `budget`, from run.json's offsets alone: chunks in
    rank order while the running total fits; the one that would cross is left out."""
    recalls, hits, prompts = [], [], []
    for query in data["queries"].values():
        sent, total = [], 0
        for chunk in query["candidates"][name]["ranked"]:
            total += count(chunk)
            if total > budget:
                break
            sent.append(chunk)
        prompts.append(sum(count(c) for c in sent))
        if query["abstain"] or not query["evidence"]:
            continue
        found = list(_groups_found(sent, query["evidence"]).values())
        recalls.append(sum(found) / len(found))
        hits.append(float(all(found)))
    return {"recall": statistics.fmean(recalls), "hit": statistics.fmean(hits),
            "prompt": statistics.fmean(prompts)}  # fmt: skip


def test_budget_figures_equal_a_recomputation_from_the_folder(
    demo: tuple[RunResult, RunFile, Path],
) -> None:
    _, _, folder = demo
    data = json.loads((folder / "run.json").read_text("utf-8"))
    texts = dict(Corpus.read(DEMO / "corpus").texts())  # the PDF and HTML pages extracted
    tok = _tokenizer()

    def count(chunk: list[Any]) -> int:
        return len(tok.encode(texts[chunk[1]][chunk[2] : chunk[3]], add_special_tokens=False).ids)

    settings = data["manifest"]["settings"]
    base = data["candidates"][settings["baseline"]]["metrics"]["mean_chunk_tokens"]
    assert settings["budget"] == math.ceil(settings["k"] * base)  # rounded up, as the plan's
    for name in TOKENS:
        record = data["candidates"][name]
        mine = _at_budget(data, name, settings["budget"], count)
        at = record["metrics_at_budget"]
        assert mine["recall"] == pytest.approx(at["evidence_recall@k"], abs=1e-12)
        assert mine["hit"] == pytest.approx(at["hit@k"], abs=1e-12)
        assert mine["prompt"] == pytest.approx(at["prompt_tokens@k"], abs=1e-9)
        curve = record["budget_curve"]
        for budget, recall, hit in zip(curve["budgets"], curve["recall"], curve["hit"],
                                       strict=True):  # fmt: skip
            again = _at_budget(data, name, budget, count)
            assert (again["recall"], again["hit"]) == pytest.approx((recall, hit), abs=1e-12)
