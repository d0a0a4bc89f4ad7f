"""The one context budget rule (§17), below every wing that states a budget: plan, eval,
gate, diff, show and triage all take the default budget from `default_budget`, so no two
views can round k × the baseline's mean chunk tokens differently.

The context a query fills at that budget is `evaluator.metrics.view.in_budget`'s fill rule;
the plan's ceiling at budget is measured through it too (evaluator/plan/ceiling.py).
"""

from __future__ import annotations

import math

EPSILON = 1e-9
"""Float noise in k × mean kept from rounding a whole product up a token."""


def default_budget(k: int, baseline_mean_tokens: float | None) -> int:
    """The context budget declared from the chunking alone when `[settings] budget` is unset:
    k × the baseline's mean chunk tokens (the settings' tokenizer, prefixes counted), rounded
    UP to a whole token, so the baseline's own k chunks of mean size fit it; at least 1."""
    return max(1, math.ceil(k * (baseline_mean_tokens or 0.0) - EPSILON))


def budget_rule(k: int, baseline: str, baseline_mean_tokens: float | None) -> str:
    """How `default_budget` chose the budget, in words every header repeats."""
    mean = baseline_mean_tokens or 0.0
    return f"k × {baseline}'s mean chunk tokens = {k} × {mean:.2f}, rounded up to a whole token"
