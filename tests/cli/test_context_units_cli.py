"""A candidate's `context` table (§18) through `spanlab eval`: every hostile value is refused
before any work with one line naming the file, the key and the candidate, exit 2, and
nothing is written (no run folder, no index, no cache)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from tests.cli.test_ci import TWO_CANDIDATES
from tests.cli.test_ci import ci_folder as ci_folder  # the fixture
from tests.evaluator.pipeline.test_run import DOCS

CTX = 'name = "ctx"\nsplitter = "chars"\nsize = 30\n'
PARENT = 'splitter = "chars"\nsize = 60\n'

CASES = [
    ("window = -1", "context.window",
     "candidate 'ctx': context: window must lie between 1 and 1,000, got -1"),
    ("window = 0", "context.window",
     "candidate 'ctx': context: window must lie between 1 and 1,000, got 0"),
    ("window = 1001", "context.window",
     "candidate 'ctx': context: window must lie between 1 and 1,000, got 1,001"),
    ("window = 10000000000000", "context.window",
     "candidate 'ctx': context: window must lie between 1 and 1,000, got 10,000,000,000,000"),
    ("window = 1.5", "context.window",
     "candidate 'ctx': context: window must be an integer, got 1.5"),
    ("window = true", "context.window",
     "candidate 'ctx': context: window must be an integer, got True"),
    ('window = "2"', "context.window",
     "candidate 'ctx': context: window must be an integer, got '2'"),
    ("windows = 2", "context.windows",
     "candidate 'ctx': context: unknown key 'windows' (known: window, parent, merge, "
     "merge_ratio)"),
    ("window = 1\nmerge = 1", "context.merge",
     "candidate 'ctx': context: merge must be true or false, got 1"),
    ("window = 1\nmerge_ratio = 0.5", "context.merge_ratio",
     "candidate 'ctx': context: merge_ratio applies to a parent, not here"),
    ("merge_ratio = 1.01\n" + "[candidate.context.parent]\n" + PARENT, "context.merge_ratio",
     "candidate 'ctx': context: merge_ratio must be a number in (0, 1], got 1.01"),
    ("merge = false\n" + "[candidate.context.parent]\n" + PARENT, "context.merge",
     "candidate 'ctx': context: merge applies to a window, not here"),
    ("", "context", "candidate 'ctx': context needs one of window or parent, not 0"),
    ('window = 1\n[candidate.context.parent]\nsplitter = "chars"\nsize = 60', "context",
     "candidate 'ctx': context needs one of window or parent, not 2"),
    ("parent = 3", "context.parent", "candidate 'ctx': context.parent must be a table"),
    ('[candidate.context.parent]\nsplitter = "chars"\nsize = 60\nname = "p"',
     "context.parent.name", "candidate 'ctx': context.parent: unknown key 'name' (known: "
     "splitter, size, overlap, unit, tokenizer, function, options)"),
    ('[candidate.context.parent]\nsplitter = "chars"', "context.parent.size",
     "candidate 'ctx': context.parent: missing key 'size'"),
    ('[candidate.context.parent]\nsplitter = "chars"\nsize = 60\noverlap = 60',
     "context.parent.overlap",
     "candidate 'ctx': context.parent: overlap (60) must be smaller than size (60)"),
    ('[candidate.context.parent]\nsplitter = "shingles"\nsize = 60',
     "context.parent.splitter", "candidate 'ctx': context.parent: unknown splitter 'shingles'"),
    ('[candidate.context.parent]\nsplitter = "chars"\nsize = 60\n'
     "[candidate.context.parent.context]\nwindow = 1",
     "context.parent.context", "candidate 'ctx': context.parent: unknown key 'context'"),
]  # fmt: skip


def table(context: str) -> str:
    """The context as a `[candidate.context]` table, or as written when it opens its own."""
    return context if context.startswith("[") else f"[candidate.context]\n{context}"


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def evaluate(folder: Path, candidate: str) -> tuple[int, str]:
    (folder / "candidates.toml").write_text(
        TWO_CANDIDATES.replace("max_lost = {max_lost}", "max_lost = 9") + "\n[[candidate]]\n"
        + candidate, "utf-8",
    )  # fmt: skip
    before = files(folder)
    result = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "frozen.json"])
    assert files(folder) == before  # nothing written (the project's empty .spanlab at most)
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("context", "key", "words"), CASES, ids=[c[0] or "{}" for c in CASES])
def test_a_hostile_context_is_refused_naming_the_candidate_and_the_key(
    ci_folder: Path, context: str, key: str, words: str
) -> None:
    code, err = evaluate(ci_folder, CTX + table(context))
    assert code == 2, err
    assert err.startswith(f"error: candidates.toml, key {key}: {words}"), err


def test_a_context_that_is_not_a_table_is_refused(ci_folder: Path) -> None:
    code, err = evaluate(ci_folder, CTX + "context = 3\n")
    assert code == 2
    assert err.startswith(
        "error: candidates.toml, key context: candidate 'ctx': 'context' has the wrong type (int)"
    ), err


def test_parents_that_do_not_hold_their_children_are_refused(ci_folder: Path) -> None:
    """A team's exported children (50 characters) under 60-character parents: the child
    50..100 lies across the parents' cut at 60, so no parent holds it."""
    lines = [json.dumps({"doc": doc, "start": s, "end": min(s + 50, len(text))})
             for doc, text in sorted(DOCS.items()) for s in range(0, len(text), 50)]  # fmt: skip
    (ci_folder / "children.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    candidate = ('name = "ctx"\nsplitter = "chunks"\noptions = { path = "children.jsonl" }\n'
                 "[candidate.context.parent]\n" + PARENT)  # fmt: skip
    code, err = evaluate(ci_folder, candidate)
    assert code == 2, err
    assert err.startswith(
        "error: candidates.toml, key context.parent, offset 50: candidate 'ctx': document "
        "'refunds.md': "
        "chunk (50, 100) lies inside no parent; every retrieved chunk must lie inside one parent"
    ), err
