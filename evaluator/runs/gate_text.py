"""A gate's outcome in words, the same in `gate`'s output, the summary, report.md and junit.xml.

`max_lost: 14 lost, limit 3` reads as a count against its limit; each gate's value is
printed in the format of the figure it judges, taken from the measure registry, so a delta
of recall prints as recall's deltas do everywhere (`-0.062`), never `-0.0625`.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.metrics.registry import ABSTENTION_TOP1, DUPLICATES, RECALL, shown
from evaluator.runs.budget_text import basis_name
from evaluator.runs.model import RunFile
from evaluator.runs.model_parts import ANSWERED, GateRecord


@dataclass(frozen=True)
class GateWords:
    """How one gate's value and limit are written."""

    what: str
    """What the value counts, after it (`lost`) or before it (`Δ recall@k`)."""
    figure: str | None
    """The registry figure whose format the value takes; None for a count or a ratio."""
    pattern: str = "{:.0f}"
    """The format when no figure gives one."""
    before: bool = True
    """Whether `what` precedes the value (`Δ recall@k -0.062`) or follows it (`14 lost`)."""
    divides: str = ""
    """For a ratio, the figure it divides, as said when a run lacks it (`chunk count`)."""


GATES = {
    "max_lost": GateWords("lost", None, "{:.0f}", before=False),
    "min_recall_delta": GateWords(f"Δ {shown(RECALL).short}", RECALL),
    "max_chunk_count_ratio": GateWords("× the baseline's chunks", None, "{:.2f}", before=False,
                                       divides="chunk count"),
    "max_duplicate_pairs_delta": GateWords(f"Δ {shown(DUPLICATES).short}", DUPLICATES),
    "max_abstention_top1_delta": GateWords(f"Δ {shown(ABSTENTION_TOP1).short}", ABSTENTION_TOP1),
    "max_prompt_tokens_ratio": GateWords("× the baseline's prompt tokens", None, "{:.2f}",
                                         before=False, divides="prompt tokens"),
    "max_index_bytes_ratio": GateWords("× the baseline's vector bytes", None, "{:.2f}",
                                       before=False, divides="vector bytes"),
    "max_latency_p95_ratio": GateWords("× the baseline's warm p95 latency", None, "{:.2f}",
                                       before=False, divides="warm p95 latency"),
    "min_completeness": GateWords("mean completeness", None, "{:.2f}"),
    "min_citation_precision": GateWords("mean citation precision", None, "{:.2f}"),
    "min_citation_recall": GateWords("mean citation recall", None, "{:.2f}"),
    "min_abstention": GateWords("mean abstention", None, "{:.2f}"),
    "max_unsupported": GateWords("unsupported items per answer", None, "{:.2f}", before=False),
    "max_repeated_sentences": GateWords("repeated sentences per answer", None, "{:.2f}",
                                        before=False),
    "max_failed": GateWords("of its prompts without an answer", None, "{:.1%}", before=False),
    ANSWERED: GateWords("answers", None, "{:.0f}", before=False),
}  # fmt: skip
"""Every gate key of the candidates file, in words (`[gates.generation]`'s too: its
`max_lost` is judged per check, its scope `generation:CHECK`), and the `answered` check."""


def number(gate: str, value: float | None) -> str:
    """A gate's value or limit in its figure's format; deltas signed."""
    words = GATES[gate]
    if value is None:
        return "–"
    if words.figure is not None:
        return shown(words.figure).delta_text(value)
    return words.pattern.format(value)


def gate_line(g: GateRecord, basis: str | None = None) -> str:
    """`overall  max_lost: 14 lost at budget 608, limit 3` (`no data` when the scope has no
    query; why, when the gate cannot be evaluated). `basis` names what the figure was taken
    at (`k = 5`, `budget 608`; see `gate_basis`), so no at-budget figure reads as `@k`;
    None for a run written before budgets were kept (at k: the figure keeps its `@k`)."""
    words = GATES[g.gate]
    value = number(g.gate, g.value)
    what = words.what if basis is None else words.what.replace("@k", "")
    measured = f"{what} {value}" if words.before else f"{value} {what}"
    if basis is not None:
        measured += f" at {basis}"
    if g.value is None:
        measured = "no data" if g.unavailable is None else g.unavailable
    return f"{g.scope}  {g.gate}: {measured}, limit {number(g.gate, g.limit)}"


def at_least(gate: str) -> bool:
    """Whether the gate's limit is a least value (`min_…`, `answered`) rather than a most."""
    return gate.startswith("min_") or gate == ANSWERED


def gate_basis(run: RunFile, deciding: bool = True) -> str | None:
    """What `run.gates` (or with `deciding` False, `run.other_basis_gates`) were taken at:
    `k = 5` or `budget 608`; None for a run without a budget (at k, as its labels say)."""
    if run.budget is None:
        return None
    basis = run.decide if deciding else ("k" if run.decide == "budget" else "budget")
    return basis_name(run, basis)


def unavailable(gate: str, side: str, zero: bool) -> str:
    """Why a ratio gate cannot be evaluated: `side` (a candidate, `RUN:name` for a stored
    run's) lacks the figure it divides, or has 0 of it."""
    figure = GATES[gate].divides
    lacks = f"{side}'s {figure} is 0" if zero else f"{side} has no {figure}"
    return f"cannot be evaluated ({lacks}): fails until both runs have it"
