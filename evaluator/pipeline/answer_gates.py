"""The answers' verdict (§23): `[gates.generation]` on each compared candidate's checks, and
what a run with `[generation]` checks of every candidate whatever the gates — that it had an
answer at all (`answered`), so a generation stage that measured nothing fails closed.

Partial failure is counted and shown; `max_failed` (a share of a candidate's prompts) gates
it when declared. Both judge the baseline too: its answers are what the others are paired on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluator.generation.compare import HAD, no_answer
from evaluator.generation.run_file import CHECKS, AnswerRecord
from evaluator.generation.summary import GenerationSummary
from evaluator.runs.model_parts import ANSWERED, ANSWERS, GateRecord

MEANS = {
    "min_completeness": "completeness", "min_citation_precision": "citation_precision",
    "min_citation_recall": "citation_recall", "min_abstention": "abstention",
    "max_unsupported": "unsupported", "max_repeated_sentences": "repeated_sentences",
}  # fmt: skip
"""`[gates.generation]` gates on a check's mean, and the check each reads."""
PER_CANDIDATE = ("max_failed",)
"""`[gates.generation]` gates judged on every candidate, the baseline included."""


def gate_answers(
    limits: Mapping[str, float], s: GenerationSummary, by: Mapping[str, Sequence[AnswerRecord]]
) -> list[GateRecord]:
    """Every candidate's `answered` check (and `max_failed`), then every other
    `[gates.generation]` gate for every compared candidate."""
    out = [g for name in (c.name for c in s.candidates)
           for g in asking_gates(name, by.get(name, ()), limits)]  # fmt: skip
    for name in s.comparisons:
        out += check_gates(name, s, limits)
    return out


def asking_gates(
    name: str, records: Sequence[AnswerRecord], limits: Mapping[str, float]
) -> list[GateRecord]:
    """`answered` (at least one answer) and, when declared, `max_failed` (the share of its
    prompts without an answer) for a candidate that sent prompts; none for one that sent none."""
    if not records:
        return []
    had = sum(r.outcome in HAD for r in records)
    why = no_answer(name, records)
    out = [GateRecord(name, ANSWERS, ANSWERED, 1.0, None if why else float(had), why is None, why)]
    if "max_failed" in limits:
        share = (len(records) - had) / len(records)
        limit = limits["max_failed"]
        out.append(GateRecord(name, ANSWERS, "max_failed", limit, share, share <= limit))
    return out


def check_gates(name: str, s: GenerationSummary, limits: Mapping[str, float]) -> list[GateRecord]:
    """A compared candidate's gates on its checks: `max_lost` per check, and each mean gate.
    A mean gate without any answer fails (fail closed: a server that answered nothing never
    reads as a kept limit)."""
    comp, mine = s.comparisons[name], s.candidate(name)
    out: list[GateRecord] = []
    for gate, limit in limits.items():
        if gate in PER_CANDIDATE:
            continue
        if gate == "max_lost":
            for check in CHECKS:
                lost = float(len(comp.checks[check].lost))
                out.append(GateRecord(name, f"{ANSWERS}:{check}", gate, limit, lost, lost <= limit))
            continue
        value = None if mine is None else mine.values.get(MEANS[gate])
        why = None if value is not None else f"{name} has no answer with {MEANS[gate]}"
        held = value is not None and (value >= limit if gate.startswith("min_") else value <= limit)
        out.append(GateRecord(name, ANSWERS, gate, limit, value, held, why))
    return out
