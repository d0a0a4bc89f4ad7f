"""Generation as one stage (§23): each candidate's context at budget for the queries whose
retrieval qualified, asked once, checked, and handed back as plain records.

The pipeline's conductor calls `prompts` then `answer`; this module sees retrieval only
as `Retrieved` values (ranked lists, what each rank sends, hit and recall at budget), so it
never reaches into a run. Which queries are sent is declared (`send`): `hit` sends an
answerable query only through a candidate that hit it at budget, `all` sends every one;
abstention queries are always sent (the abstention check needs them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from evaluator.candidate_generation import Generation
from evaluator.generation.asking import Asked, Tally, ask_all
from evaluator.generation.cache import AnswerCache
from evaluator.generation.checks.answer import AnswerChecks, check_answer
from evaluator.generation.checks.citations import holding
from evaluator.generation.prompt import Prompt, build
from evaluator.generation.run_file import (
    AnswerRecord,
    CheckRecord,
    FactRecord,
    SentSource,
    safe,
)
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.sent import Sending
from evaluator.metrics.settings import MetricSettings
from evaluator.metrics.view import QueryView
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query

SEND = ("hit", "all")
"""Which answerable queries are sent: those hit at budget (per candidate), or all."""


@dataclass(frozen=True)
class Retrieved:
    """One candidate's retrieval, as generation reads it."""

    name: str
    ranked: Mapping[str, Sequence[Ranked]]
    """Query id -> ranked list to depth."""
    sending: Sending | None
    """What a rank sends (§18); None: the chunk itself."""
    hit: Mapping[str, bool]
    """Query id -> whether every span matched at budget (answerable queries)."""
    recall: Mapping[str, float | None]
    """Query id -> evidence recall at budget (None for abstention queries)."""


@dataclass(frozen=True)
class Asking:
    """What every prompt is built with: the same for every candidate."""

    g: Generation
    settings: MetricSettings
    """The run's settings at its budget (a prompt is built at budget, §17)."""
    tokens: TokenCounter
    text_of: Callable[[str], str]


def sent_queries(queries: Sequence[Query], r: Retrieved, send: str) -> list[Query]:
    """The queries `r` sends: abstention queries always; answerable ones as `send` says."""
    return [q for q in queries if q.abstain or send == "all" or r.hit.get(q.id, False)]


def prompts(
    at: Asking, queries: Sequence[Query], retrieved: Sequence[Retrieved], send: str
) -> list[tuple[str, Prompt]]:
    """(candidate, prompt) for every query each candidate sends, candidates in order."""
    empty = ChunkIndex.build(())
    return [
        (r.name, build(QueryView(q, r.ranked[q.id], empty, at.settings, at.tokens, r.sending),
                       at.g, at.text_of))
        for r in retrieved for q in sent_queries(queries, r, send)
    ]  # fmt: skip


def answer(
    at: Asking, cache: AnswerCache, asked: Sequence[tuple[str, Prompt]],
    queries: Mapping[str, Query], advance: Callable[[int], None] | None = None,
) -> tuple[tuple[AnswerRecord, ...], Tally]:  # fmt: skip
    """Every prompt asked (cache first), checked and recorded, and what asking did."""
    outcomes, tally = ask_all(at.g, cache, [p for _, p in asked], advance)
    records = tuple(
        record(name, one, queries[one.prompt.query], at)
        for (name, _), one in zip(asked, outcomes, strict=True)
    )
    return records, tally


def record(name: str, one: Asked, query: Query, at: Asking) -> AnswerRecord:
    """One outcome as generation.jsonl keeps it: checked when there is an answer."""
    evidence = () if query.abstain else query.evidence
    threshold = at.settings.coverage_threshold
    sources = tuple(
        SentSource(s.number, s.chunk.doc, s.chunk.start, s.chunk.end,
                   holding(s, evidence, threshold))
        for s in one.prompt.sources
    )  # fmt: skip
    facts = query.facts
    if one.reply is None:
        unstated = tuple(FactRecord(f, False) for f in facts)
        return AnswerRecord(query.id, name, one.failure, False, sources, "", (), (), (),
                            unstated, safe(one.message))  # fmt: skip
    checks = check_answer(one.prompt, one.reply, query, facts, at.g.abstention, threshold)
    return AnswerRecord(
        query.id, name, "refused" if one.reply.refused else "answered", one.cached, sources,
        safe(one.reply.text), checks.citations.cited.valid, checks.citations.cited.unknown,
        check_records(checks),
        tuple(FactRecord(f, s) for f, s in zip(facts, checks.completeness.stated, strict=True)),
    )  # fmt: skip


def check_records(c: AnswerChecks) -> tuple[CheckRecord, ...]:
    """Each check's value and what it lists, in run_file.CHECKS order."""
    unknown = tuple(f"[{n}]" for n in c.citations.cited.unknown)
    repeated = tuple(safe(s) for s in c.repeats.repeated)
    return (
        CheckRecord("citation_precision", c.citations.precision, unknown),
        CheckRecord("citation_recall", c.citations.recall),
        CheckRecord("unsupported", float(c.unsupported.value),
                    tuple(f"{i.kind}: {safe(i.text)}" for i in c.unsupported.items)),
        CheckRecord("completeness", c.completeness.value),
        CheckRecord("abstention", c.abstention.value),
        CheckRecord("repeated_sentences", float(c.repeats.value), repeated),
    )  # fmt: skip
