"""The conductor's one stay for generation (§23, STYLE 19): when the candidates file has a
`[generation]`, every candidate's context at budget is asked of the generator, checked,
compared with the baseline's and gated; the stage hands back one plain `Generated`.

Answers are cached beside the embedding cache (`answers.db`), so a rerun and a second
candidate whose context is the same text ask the server nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from evaluator.candidates import CandidatesFile
from evaluator.embedding import accounts
from evaluator.generation import stage
from evaluator.generation.asking import Tally
from evaluator.generation.cache import AnswerCache
from evaluator.generation.compare import AnswerComparison, candidate_answers, compare_answers
from evaluator.generation.prompt import Prompt
from evaluator.generation.run_file import AnswerRecord
from evaluator.generation.summary import Asking, GenerationSummary
from evaluator.metrics.compare import Comparison
from evaluator.metrics.registry import HIT, RECALL
from evaluator.metrics.settings import MetricSettings
from evaluator.pipeline import progress
from evaluator.pipeline.answer_gates import gate_answers
from evaluator.pipeline.context import Context
from evaluator.pipeline.result import CandidateRun
from evaluator.runs.model_parts import GateRecord
from labeler.core.display import shown
from labeler.core.project.cache_place import CachePlace, CacheWhere, own_file
from labeler.core.secrets import redact
from labeler.core.values import Query

CACHE_NAME = "answers.db"
"""The answer cache's name, beside the embedding cache."""


@dataclass(frozen=True)
class Generated:
    """What the stage hands back: the run.json section, the records, the gates."""

    summary: GenerationSummary
    records: tuple[AnswerRecord, ...]
    gates: tuple[GateRecord, ...]


def retrieved(name: str, run: CandidateRun) -> stage.Retrieved:
    """A candidate's retrieval as generation reads it: at budget."""
    found = run.at_budget or run.result
    per = found.per_query
    return stage.Retrieved(
        name, run.ranked, run.sending,
        {q: bool(v.get(HIT)) for q, v in per.items()},
        {q: _number(v.get(RECALL)) for q, v in per.items()},
    )  # fmt: skip


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def generate(
    ctx: Context, cfile: CandidatesFile, runs: Mapping[str, CandidateRun],
    queries: Sequence[Query], budget: Mapping[str, Comparison],
) -> Generated | None:  # fmt: skip
    """Ask, check, compare and gate the answers; None without `[generation]`."""
    g = cfile.generation
    if g is None:
        return None
    started = time.perf_counter()
    settings = replace(MetricSettings.of(ctx.settings), budget=ctx.settings.budget)
    at = stage.Asking(g, settings, ctx.counter, ctx.texts.__getitem__)
    asked = stage.prompts(at, queries, [retrieved(n, r) for n, r in runs.items()], g.send)
    records, tally = _ask(ctx, at, asked, queries)
    by = {n: [r for r in records if r.candidate == n] for n in runs}
    asking = Asking(g.model, redact(g.url), g.template, g.template_sha256, g.decoding(),
                    g.abstention, g.send, tally.asked, tally.cached, tally.refused,
                    dict(tally.failed), time.perf_counter() - started)  # fmt: skip
    summary = GenerationSummary(asking, tuple(candidate_answers(n, by[n]) for n in runs),
                                _compared(ctx, by, budget))  # fmt: skip
    return Generated(summary, records, tuple(gate_answers(cfile.gates.generation, summary, by)))


def _ask(
    ctx: Context, at: stage.Asking, asked: Sequence[tuple[str, Prompt]], queries: Sequence[Query]
) -> tuple[tuple[AnswerRecord, ...], Tally]:
    """Every prompt through the answer cache, under a bar in answers per second."""
    path, private = answers_path(ctx.options.cache_path)
    cache = AnswerCache(path, private=private)
    try:
        with progress.task("generation: answers", len(asked), enabled=ctx.options.progress,
                           unit="answers") as advance:  # fmt: skip
            return stage.answer(at, cache, asked, {q.id: q for q in queries}, advance)
    finally:
        cache.close()


def _compared(
    ctx: Context, by: Mapping[str, Sequence[AnswerRecord]], budget: Mapping[str, Comparison]
) -> dict[str, AnswerComparison]:
    """Every candidate's answers against the baseline's, with its recall at budget."""
    s, base = ctx.settings, ctx.settings.baseline
    return {
        n: compare_answers(by[base], mine, n, _recall_deltas(budget.get(n)),
                           resamples=s.resamples, seed=s.seed, recall=_recall(budget.get(n)))
        for n, mine in by.items() if n != base
    }  # fmt: skip


def answers_path(where: CacheWhere) -> tuple[str, bool]:
    """The answer cache's file and whether it is one account's own (§21): in a team, beside
    one's own embedding cache, 0640 in one's own folder, so no member plants or edits the
    answers another's verdicts read; in memory, said, when that folder is not one's own."""
    if isinstance(where, CachePlace):
        file = where.own.parent / CACHE_NAME
        if why := accounts.make_own(where) or accounts.why_untrusted(file, where.me):
            print(shown(f"warning: your answer cache is not used, answers are not kept: {why}"),
                  file=sys.stderr)  # fmt: skip
            return ":memory:", False
        return str(file), True
    own = own_file(where)
    return (":memory:" if own is None else str(own.parent / CACHE_NAME)), False


def _recall(comp: Comparison | None) -> float | None:
    return None if comp is None else comp.overall.deltas.get(RECALL)


def _recall_deltas(comp: Comparison | None) -> dict[str, float | None]:
    if comp is None:
        return {}
    return {q: c.recall_delta for q, c in comp.queries.items()}
