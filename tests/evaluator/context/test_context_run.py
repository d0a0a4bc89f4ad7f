"""A window and a parent-document candidate through a whole run (§18): run.json records the
context and, per rank, what was sent; prompt tokens count what was sent; `show` draws the
retrieved chunk and its parent; the run reads back with its context."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from evaluator.chunking.spec import ContextSpec, SplitterSpec
from evaluator.runs.model import read_run
from labeler.cli import app
from tests.cli.test_ci import TWO_CANDIDATES
from tests.cli.test_ci import ci_folder as ci_folder  # the fixture
from tests.evaluator.pipeline.test_run import DOCS

CONTEXTS = """
[[candidate]]
name = "c30-win1"
splitter = "chars"
size = 30
context = { window = 1 }

[[candidate]]
name = "c30-parent"
splitter = "chars"
size = 30
[candidate.context.parent]
splitter = "chars"
size = 90
"""


def run_folder(folder: Path) -> Path:
    text = TWO_CANDIDATES.replace("max_lost = {max_lost}", "max_lost = 9") + CONTEXTS
    (folder / "candidates.toml").write_text(text, "utf-8")
    result = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "frozen.json"])
    assert result.exit_code == 0, result.output
    return sorted((folder / ".spanlab" / "runs").iterdir())[-1]


def test_prompt_tokens_count_what_was_sent_and_run_json_records_it(ci_folder: Path) -> None:
    folder = run_folder(ci_folder)
    raw = json.loads((folder / "run.json").read_text("utf-8"))
    assert raw["candidates"]["c30-parent"]["splitter"]["context"]["parent"]["size"] == 90
    assert raw["candidates"]["c30-win1"]["splitter"]["context"] == {"window": 1}
    assert "context" not in raw["candidates"]["c30"]["splitter"]  # older fingerprints stay
    q = raw["queries"]["q-0001"]["candidates"]
    assert "sent" not in q["c30"]
    ranked, sent = q["c30-parent"]["ranked"], q["c30-parent"]["sent"]
    assert len(sent) == len(ranked)
    for (_, doc, start, end, _), (_, sdoc, pstart, pend, _) in zip(ranked, sent, strict=True):
        assert sdoc == doc and pstart <= start < end <= pend and (pend - pstart) <= 90
    run = read_run(folder)
    parent = run.candidate("c30-parent").spec
    assert parent.context == ContextSpec(parent=SplitterSpec("chars", 90))
    # the parents' tokens are more than their children's: what is sent is what is counted
    tokens = {n: run.candidate(n).metric("prompt_tokens@k") for n in ("c30", "c30-parent",
                                                                      "c30-win1")}  # fmt: skip
    assert tokens["c30-parent"] is not None and tokens["c30"] is not None
    assert tokens["c30-parent"] > tokens["c30"]
    assert tokens["c30-win1"] is not None and tokens["c30-win1"] > tokens["c30"]


def test_show_draws_the_retrieved_chunk_and_the_parent_sent_for_it(ci_folder: Path) -> None:
    folder = run_folder(ci_folder)
    result = CliRunner().invoke(
        app, ["show", str(folder), "q-0002", "--candidate", "c30-parent", "--corpus", "corpus"]
    )
    assert result.exit_code == 0, result.output
    run = read_run(folder)
    entry = run.queries["q-0002"].candidates["c30-parent"]
    first, parent = entry.ranked[0], entry.sent[0]
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if f"{first.doc} {first.start}..{first.end}"
              in line and first.chunk_id in line)  # fmt: skip
    assert lines[at + 1].split()[:2] == ["sent", f"{parent.doc}"]
    assert f"{parent.start}..{parent.end}" in lines[at + 1] and parent.chunk_id in lines[at + 1]
    assert "c30-parent did not send it whole for its top 2" in result.stdout  # 72 %
    assert len(DOCS["shipping.md"]) > 90  # the parent is a part of the document, not all of it


def test_a_hostile_window_in_run_json_is_refused_by_show(ci_folder: Path) -> None:
    folder = run_folder(ci_folder)
    raw = json.loads((folder / "run.json").read_text("utf-8"))
    raw["candidates"]["c30-win1"]["splitter"]["context"]["window"] = 10**9
    (folder / "run.json").write_text(json.dumps(raw), "utf-8")
    result = CliRunner().invoke(app, ["show", str(folder), "q-0002", "--corpus", "corpus"])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: {folder / 'run.json'}, key candidates.c30-win1.splitter.context.window: "
        "must lie between 0 and 1,000, got 1,000,000,000"
    ), result.stderr


def show_lines(folder: Path, candidate: str) -> list[str]:
    result = CliRunner().invoke(
        app, ["show", str(folder), "q-0002", "--candidate", candidate, "--corpus", "corpus"]
    )
    assert result.exit_code == 0, result.output
    return [line.rstrip() for line in result.stdout.splitlines()]


def test_shows_ruler_marks_where_each_sent_parent_starts_and_ends(ci_folder: Path) -> None:
    """shipping.md's 90-character parents are 0..90 and 90..135; its second line starts at
    offset 12, so the edge at 90 sits in column 78 of the row under that line's ruler."""
    folder = run_folder(ci_folder)
    lines = show_lines(folder, "c30-parent")
    legend = next(i for i, line in enumerate(lines) if line.startswith("── shipping.md 0..135"))
    assert lines[legend + 1] == "┃ c30-parent sends parents 0..90, 90..135"
    assert lines[legend + 2 : legend + 5] == ["# Shipping", "╫", "┃"]  # the parent at 0
    at = lines.index(DOCS["shipping.md"].splitlines()[2])
    assert DOCS["shipping.md"].index(lines[at]) == 12
    assert lines[at + 2] == " " * (90 - 12) + "┃"
    assert lines[at + 1][90 - 12] == "┊"  # a child of c30-parent ends there too
    assert lines[at + 3 : at + 6] == ["", "╫", "┃"]  # the last parent's end, 135


def test_a_candidate_that_sends_no_parent_draws_no_parent_row(ci_folder: Path) -> None:
    folder = run_folder(ci_folder)
    assert not any("┃" in line for line in show_lines(folder, "c30-win1"))
