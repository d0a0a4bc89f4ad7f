"""Every check of one answer, side by side and never blended (§23): what a run will keep
per query and candidate once the pipeline calls this stage.

Facts are passed in: the label set does not carry them yet (answer labels are to come).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaluator.generation.checks.abstention import Abstention, abstention, evidence_present
from evaluator.generation.checks.citations import CitationAlignment, citation_alignment
from evaluator.generation.checks.completeness import Completeness, completeness
from evaluator.generation.checks.repeats import Repeats, repeats
from evaluator.generation.checks.unsupported import Unsupported, unsupported
from evaluator.generation.client import Reply
from evaluator.generation.prompt import Prompt
from labeler.core.values import Query


@dataclass(frozen=True)
class AnswerChecks:
    """One answer's checks; each keeps its own value and its own listing."""

    citations: CitationAlignment
    unsupported: Unsupported
    completeness: Completeness
    abstention: Abstention
    repeats: Repeats


def check_answer(
    prompt: Prompt, reply: Reply, query: Query, facts: Sequence[Sequence[str]],
    phrase: str, threshold: float,
) -> AnswerChecks:  # fmt: skip
    """The five checks of `reply` to `prompt`; `threshold` is the run's coverage threshold
    (a source holds a span as a chunk matches it), `phrase` the template's abstention."""
    evidence = () if query.abstain else query.evidence
    present = evidence_present(prompt.sources, evidence, threshold)
    text = reply.text
    return AnswerChecks(
        citation_alignment(text, prompt.sources, evidence, threshold),
        unsupported(text, prompt.sources),
        completeness(text, facts),
        abstention(text, phrase, present, refused=reply.refused),
        repeats(text),
    )
