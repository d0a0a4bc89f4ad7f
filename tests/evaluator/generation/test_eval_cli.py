"""`spanlab eval` with `[generation]` end to end on a small project (lexical retrieval), the
loopback chat server answering: per candidate every check with gained and lost queries, a
rerun that asks nothing, and every hostile server bounded, named and counted — never a
traceback, nothing raw in the terminal or a written file (a case table)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evaluator.generation.run_file import read_answers
from evaluator.runs.model import read_run
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from tests.conftest import write_corpus
from tests.evaluator.generation.chat_server import State, serve

TEXT = ("Refunds are paid within thirty days of the request. Refunds need the original "
        "receipt from the store. Shipping is free above fifty euros.\n")  # fmt: skip
TEMPLATE = ('Answer from the sources, citing [n]. If they do not hold the answer, reply '
            'exactly: "NOT IN SOURCES"\n\n{{sources}}\n\nQuestion: {{question}}\n')  # fmt: skip
UNGATED = """[settings]
baseline = "a"
retriever = "lexical"
k = 2
budget = 60

[[candidate]]
name = "a"
splitter = "chars"
size = 40

[[candidate]]
name = "b"
splitter = "chars"
size = 60
overlap = 20

[generation]
url = "{url}"
model = "tiny"
template = "answer.txt"
abstention = "NOT IN SOURCES"
timeout = 1
send = "all"
"""
CANDS = UNGATED + "\n[gates.generation]\nmin_completeness = 0.5\nmax_lost = 0\n"


def query(qid: str, text: str, **more: Any) -> dict[str, Any]:
    return {"id": qid, "text": text, "abstain": False, "boundary": "other", "slices": [],
            "status": "labelled", "notes": "", "evidence": [], **more}  # fmt: skip


def span(start: int, end: int) -> dict[str, Any]:
    return {"doc": "p.md", "start": start, "end": end, "quote": TEXT[start:end],
            "prefix": TEXT[max(0, start - 32) : start], "suffix": TEXT[end : end + 32]}  # fmt: skip


def labels() -> dict[str, Any]:
    corpus = Corpus.from_texts({"p.md": TEXT})
    return {"format": "spanlab.labelset/4",
            "corpus": {"hash": corpus.hash, "normalization": "nfc-lf/1",
                       "documents": corpus.doc_hashes},
            "queries": [
                query("q-0001", "When are refunds paid?", evidence=[span(0, 51)],
                      facts=[["thirty days"]]),
                query("q-0002", "What do refunds need from the store?", evidence=[span(52, 103)],
                      facts=[["original receipt", "the receipt"]]),
                query("q-0003", "Which colour is the company logo?", abstain=True)]}  # fmt: skip


@pytest.fixture
def server() -> Iterator[State]:
    state = State()
    state.mode = "extractive"
    http = serve(state)
    state.url = f"http://127.0.0.1:{http.server_address[1]}/v1"  # type: ignore[attr-defined]
    yield state
    state.stop.set()
    http.shutdown()
    http.server_close()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: State) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"p.md": TEXT})
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    (tmp_path / "labels.json").write_text(json.dumps(labels()))
    (tmp_path / "answer.txt").write_text(TEMPLATE)
    (tmp_path / "answer.txt").chmod(0o644)
    url = server.url  # type: ignore[attr-defined]
    (tmp_path / "cands.toml").write_text(CANDS.format(url=url))
    return tmp_path


def evaluate(root: Path) -> tuple[str, Path]:
    done = CliRunner().invoke(app, ["eval", "cands.toml", "--labels", "labels.json"],
                              env={"COLUMNS": "200"})  # fmt: skip
    assert done.exit_code in (0, 1), (done.output, done.exception)
    assert "Traceback" not in done.output and "\x1b" not in done.stdout
    folder = max((root / ".spanlab/runs").iterdir())
    return done.stdout, folder


def test_eval_prints_every_check_and_a_rerun_asks_nothing(project: Path, server: State) -> None:
    out, folder = evaluate(project)
    assert "Answers at budget" in out and "complete" in out and "cite P" in out
    assert "b            1.00    1.00     0.00      1.00     1.00     0.00       3/3       0" in out
    assert "completeness  +1 −0  Δ +0.50 [+0.00, +1.00]  gained: q-0002" in out
    assert "answers: 6 asked, 0 from the cache, 0 refused" in out
    run = read_run(folder)
    assert run.generation is not None and run.generation.asking.asked == 6
    records = read_answers(folder, run.generation.answers_sha256)
    assert len(records) == 6 and {r.outcome for r in records} == {"answered"}
    a = {r.query: r for r in records if r.candidate == "a"}
    assert a["q-0003"].answer == "NOT IN SOURCES" and a["q-0003"].value("abstention") == 1.0
    report = (folder / "report.md").read_text()
    assert "## Answers (generation at budget)" in report
    assert "| `b` | generation:completeness | max_lost | 0 | 0 | pass |" in report
    assert "| `b` | generation | min_completeness | 1.00 | 0.50 | pass |" in report
    junit = (folder / "junit.xml").read_text()
    assert 'name="generation:completeness.max_lost"' in junit
    assert "<system-out>completeness: baseline 0.50, b 1.00; completeness  +1 −0" in junit
    asked = len(server.requests)
    time.sleep(0.001)  # run ids are by the microsecond
    out, again = evaluate(project)
    assert "answers: 0 asked, 6 from the cache" in out and len(server.requests) == asked
    assert again != folder and read_run(again).generation.asking.cached == 6  # type: ignore[union-attr]


CASES = [
    ("stall", "timeout", "failed (not asked 5, timeout 1)"),
    ("trickle", "timeout", "failed (not asked 5, timeout 1)"),
    ("huge", "too large", "6 failed (not asked 3, too large 3)"),
    ("endless", "too large", "6 failed (not asked 3, too large 3)"),
    ("2gb", "too large", "6 failed (not asked 3, too large 3)"),
    ("bad-json", "bad JSON", "failed (bad JSON 3, not asked 3)"),
    ("no-choices", "bad shape", "failed (bad shape 3, not asked 3)"),
    ("refusal", "refused", "6 refused"),
    ("escapes", "answered", "6 asked"),
    ("cite-99", "answered", "6 asked"),
    ("other-language", "answered", "6 asked"),
    ("sorry", "answered", "6 asked"),
]


@pytest.mark.parametrize(("mode", "outcome", "counted"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_server_is_bounded_named_and_counted(
    project: Path, server: State, mode: str, outcome: str, counted: str
) -> None:
    server.mode = mode
    start = time.monotonic()
    out, folder = evaluate(project)
    assert time.monotonic() - start < 20
    assert counted in out, out
    run = read_run(folder)
    records = read_answers(folder, run.generation.answers_sha256)  # type: ignore[union-attr]
    assert outcome in {r.outcome for r in records}
    written = b"".join(p.read_bytes() for p in folder.iterdir())
    assert b"\x1b" not in written and b"\x07" not in written
    if mode == "escapes":
        assert all("\\x1b[31m" in r.answer for r in records)
    if mode == "cite-99":
        assert all(r.unknown == (99,) and r.value("citation_precision") == 0.0 for r in records)
    if mode in ("other-language", "sorry"):
        assert {r.value("completeness") for r in records} <= {0.0, None}


def test_diff_compares_answers_between_runs(project: Path, server: State) -> None:
    """Run A with the extractive server, run B with a server answering in German: the diff
    names the generator change (the model) and every check's movement per query."""
    _, a = evaluate(project)
    server.mode = "other-language"
    cands = (project / "cands.toml").read_text().replace('model = "tiny"', 'model = "de"')
    (project / "cands.toml").write_text(cands)
    time.sleep(0.001)
    _, b = evaluate(project)
    done = CliRunner().invoke(app, ["diff", str(a), str(b), "--candidate", "b",
                                    "--markdown", "d.md"])  # fmt: skip
    assert done.exit_code == 0, (done.output, done.exception)
    out = done.stdout
    assert "answers (generation at budget), A → B:" in out
    assert "generator model: tiny → de" in out
    assert "complete   1.00   0.00  -1.00" in out
    assert "completeness  +0 −2  Δ -1.00 [-1.00, -1.00]  lost: q-0001, q-0002" in out
    assert "abstention  +0 −1" in out and "lost: q-0003" in out  # German is no abstention
    assert "- generator model: tiny → de" in (project / "d.md").read_text()
