"""Where a project's run folders live. A module of its own, importing nothing, because the
CLI reads it on every `spanlab label`, which must not load run.json's model (design §12)."""

RUNS_DIR = ".spanlab/runs"
"""Where a project's run folders live, relative to its root."""
