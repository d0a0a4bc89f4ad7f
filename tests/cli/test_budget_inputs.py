"""Hostile context-budget settings and cost gates (§17, issue 29): each is refused with
exit 2 naming the key, before any run folder is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from tests.cli.test_hostile_inputs import dump
from tests.cli.test_hostile_inputs import project as project  # the fixture

CANDS = """[settings]
baseline = "a"
retriever = "lexical"
{extra}
[[candidate]]
name = "a"
splitter = "recursive"
size = 50

[[candidate]]
name = "b"
splitter = "chars"
size = 20
{gates}"""

# (case id, [settings] lines, [gates] tables, words the message must hold)
CASES: list[tuple[str, str, str, str]] = [
    ("budget 0", "budget = 0", "",
     "key settings.budget: [settings]: budget must lie between 1 and 10,000,000 tokens, got 0"),
    ("budget negative", "budget = -40", "", "budget must lie between 1 and 10,000,000 tokens, "
     "got -40"),
    ("budget nan", "budget = nan", "", "key settings.budget: budget is nan, not a finite number"),
    ("budget text", 'budget = "600"', "", "key budget: [settings]: 'budget' has the wrong type"),
    ("budget huge", "budget = 100000000", "", "budget must lie between 1 and 10,000,000"),
    ("budget below every chunk", "budget = 1", "",
     "key settings.budget: budget 1 is smaller than every chunk of candidate 'a'"),
    ("ladder empty", "budget_ladder = []", "",
     "key settings.budget_ladder: [settings]: budget_ladder must hold at least one budget"),
    ("ladder zero", "budget_ladder = [0, 128]", "",
     "budget_ladder's budgets must lie between 1 and 10,000,000 tokens"),
    ("ladder text", 'budget_ladder = ["128"]', "",
     "key settings.budget_ladder: [settings]: budget_ladder holds '128', not a whole number"),
    ("ladder not a list", "budget_ladder = 128", "", "'budget_ladder' has the wrong type (int)"),
    ("decide unknown", 'decide = "tokens"', "",
     "key settings.decide: [settings]: decide must be one of ('budget', 'k'), got 'tokens'"),
    ("decide empty", 'decide = ""', "", "decide must be one of ('budget', 'k'), got ''"),
    ("repeats 0", "latency_repeats = 0", "", "latency_repeats must lie between 1 and 100"),
    ("index bytes without vectors", "", "[gates]\nmax_index_bytes_ratio = 1.5\n",
     "key gates.max_index_bytes_ratio: gates.max_index_bytes_ratio: the retriever (lexical) "
     "stores no vectors, so no index bytes to gate"),
    ("pattern index bytes without vectors", "",
     "[gates.pattern.control]\nmax_index_bytes_ratio = 2\n",
     "key gates.pattern.control.max_index_bytes_ratio"),
    ("unknown cost gate", "", "[gates]\nmax_prompt_token_ratio = 1.5\n",
     "gates: unknown gate 'max_prompt_token_ratio'"),
    ("unknown pattern", "", "[gates.pattern.tables]\nmax_lost = 0\n",
     "key gates.pattern.tables: unknown boundary pattern 'tables'"),
    ("pattern not a table", "", "[gates]\npattern = 3\n",
     "key gates.pattern: [gates.pattern.NAME] must be tables"),
    ("pattern gate nan", "", "[gates.pattern.control]\nmax_prompt_tokens_ratio = nan\n",
     "key gates.pattern.control.max_prompt_tokens_ratio"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "extra", "gates", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_budget_setting_is_refused_cleanly(
    project: Path, case: str, extra: str, gates: str, words: str
) -> None:
    state = dump(project)
    before = state()
    (project / "in.toml").write_text(CANDS.format(extra=extra, gates=gates), "utf-8")
    done = CliRunner().invoke(app, ["gate", "in.toml", "--labels", "labels.json"])
    assert done.exit_code == 2, (done.output, done.exception)
    assert "Traceback" not in done.output
    assert words in done.stderr, done.stderr
    assert "in.toml" in done.stderr
    assert not (project / ".spanlab" / "runs").exists() or not any(
        (project / ".spanlab" / "runs").iterdir()
    )
    assert state() == before


def test_the_same_file_without_the_hostile_line_runs(project: Path) -> None:
    (project / "in.toml").write_text(CANDS.format(extra="budget = 64", gates=""), "utf-8")
    done = CliRunner().invoke(app, ["gate", "in.toml", "--labels", "labels.json"])
    assert done.exit_code == 0, (done.output, done.exception)
    assert "budget 64 tokens (settings)" in done.output


def test_index_bytes_gated_with_one_candidate_on_lexical_is_refused(project: Path) -> None:
    """The settings' retriever stores vectors, one candidate's own does not: its index bytes
    can never be judged, so the gate is refused before anything runs (not failed each run)."""
    text = CANDS.replace('retriever = "lexical"', 'retriever = "exact"')
    text = text.replace('splitter = "chars"', 'splitter = "chars"\nretriever = "lexical"')
    (project / "in.toml").write_text(
        text.format(extra="", gates="[gates]\nmax_index_bytes_ratio = 1.5\n"), "utf-8"
    )
    done = CliRunner().invoke(app, ["gate", "in.toml", "--labels", "labels.json"])
    assert done.exit_code == 2, (done.output, done.exception)
    assert (
        "gates.max_index_bytes_ratio: candidate 'b' (retriever lexical) stores no vectors, "
        "so no index bytes to gate" in done.stderr
    ), done.stderr
