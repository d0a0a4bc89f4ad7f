"""Gate lines read as a value against its limit, in the format of the figure judged."""

from __future__ import annotations

import pytest

from evaluator.candidate_keys import GENERATION_GATES
from evaluator.candidates import GATE_KEYS
from evaluator.runs.gate_text import GATES, at_least, gate_line
from evaluator.runs.model_parts import ANSWERED, GateRecord


@pytest.mark.parametrize(
    ("gate", "value", "limit", "line"),
    [
        ("max_lost", 14.0, 3.0, "overall  max_lost: 14 lost, limit 3"),
        ("min_recall_delta", -0.0625, -0.02,
         "overall  min_recall_delta: Δ recall@k -0.062, limit -0.020"),
        ("max_chunk_count_ratio", 1.3333, 2.0,
         "overall  max_chunk_count_ratio: 1.33 × the baseline's chunks, limit 2.00"),
        ("max_duplicate_pairs_delta", 0.5, 0.0,
         "overall  max_duplicate_pairs_delta: Δ dup pairs +0.50, limit +0.00"),
        ("max_lost", None, 0.0, "overall  max_lost: no data, limit 0"),
        ("max_unsupported", 0.25, 0.5,
         "overall  max_unsupported: 0.25 unsupported items per answer, limit 0.50"),
        ("min_completeness", 0.4, 0.5,
         "overall  min_completeness: mean completeness 0.40, limit 0.50"),
        ("max_failed", 1 / 3, 0.2,
         "overall  max_failed: 33.3% of its prompts without an answer, limit 20.0%"),
        ("answered", 2.0, 1.0, "overall  answered: 2 answers, limit 1"),
    ],
)  # fmt: skip
def test_gate_lines(gate: str, value: float | None, limit: float, line: str) -> None:
    passed = value is None or (value >= limit if at_least(gate) else value <= limit)
    assert gate_line(GateRecord("c", "overall", gate, limit, value, passed)) == line


def test_every_gate_key_has_words() -> None:
    """Every key of the candidates file, and the `answered` check a run makes itself."""
    assert set(GATES) == set(GATE_KEYS) | set(GENERATION_GATES.names()) | {ANSWERED}


def test_a_candidate_without_answers_is_named_with_its_failures() -> None:
    why = "markdown-200 had no answer: timeout 40, bad JSON 2"
    g = GateRecord("markdown-200", "generation", ANSWERED, 1.0, None, False, why)
    assert g.unmeasured and g.on_answers and at_least(g.gate)
    assert gate_line(g, "budget 608") == f"generation  answered: {why}, limit 1"


def test_a_gate_line_names_the_basis_its_figure_was_taken_at() -> None:
    lost = GateRecord("c", "overall", "max_lost", 3.0, 14.0, False)
    delta = GateRecord("c", "overall", "min_recall_delta", -0.02, -0.103, False)
    assert gate_line(lost, "budget 608") == "overall  max_lost: 14 lost at budget 608, limit 3"
    assert gate_line(delta, "budget 608") == (
        "overall  min_recall_delta: Δ recall -0.103 at budget 608, limit -0.020"
    )  # no @k
    assert gate_line(delta, "k = 5") == (
        "overall  min_recall_delta: Δ recall -0.103 at k = 5, limit -0.020"
    )
