"""A plan before any embedding (§17): what each candidate's chunking can reach, which labelled
spans it cuts and what would hold them, from offsets and token counts alone.

`build_plan` turns chunk tables and labels into a `Plan`; `text` prints it; the pipeline's
`plan_project` cuts and verifies the candidates as a run does and calls `build_plan`.
"""

from evaluator.metrics.context_budget import default_budget
from evaluator.plan.build import build_plan
from evaluator.plan.model import Plan

__all__ = ["Plan", "build_plan", "default_budget"]
