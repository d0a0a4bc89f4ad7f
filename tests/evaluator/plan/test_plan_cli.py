"""`spanlab plan` on the seeds' corpora, its bad input, and what it leaves on disk (§17)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from tests.evaluator.plan.seeds import SEED_002_CANDIDATES, seed_001, seed_002

runner = CliRunner()


def plan_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["plan", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture
def seed2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(seed_002(tmp_path / "seed-002"))
    return tmp_path / "seed-002"


def test_seed_002_counts_7_and_9_chunks_with_a_ceiling_each(seed2: Path) -> None:
    data = plan_json("candidates.toml", "--labels", "labels.json")
    counts = {c["name"]: c["figures"]["chunk_count"] for c in data["candidates"]}
    assert counts == {"chars80-ov0": 7, "chars80-ov24": 9}
    ov24 = data["candidates"][1]
    assert ov24["figures"]["covered_chars"] == 502
    assert ov24["figures"]["indexed_chars"] == 694  # 8 windows of 80 and the last 54
    assert ov24["figures"]["realized_overlap"] == pytest.approx(694 / 502)
    oracle = [c for c in ov24["ceilings"] if c["chunks"] is None and c["budget"] is None]
    assert {(c["rule"], c["recall"], c["hit"]) for c in oracle} == {
        ("chunk", 1.0, 1.0),
        ("union", 1.0, 1.0),
    }
    at_budget = [c for c in ov24["ceilings"] if c["budget"] is not None]
    assert {c["budget"] for c in at_budget} == {data["budget"]}  # the plan's one budget
    assert len(at_budget) == 2  # one per rule


def test_seed_002_says_overlap_24_cannot_hold_the_customs_fact_and_why(seed2: Path) -> None:
    data = plan_json("candidates.toml", "--labels", "labels.json")
    customs = next(s for s in data["spans"] if s["query"] == "customs")
    anchor = customs["anchor"]
    assert (anchor["words"], anchor["distance"], anchor["reach"]) == ("Customs clearance", 88, 97)
    fit = next(f for f in anchor["fits"] if f["candidate"] == "chars80-ov24")
    assert fit["held"] is False
    assert fit["hold"]["words"] == (
        "overlap 24 cannot hold it: longer than the window (97 > 80 chars): no overlap can; "
        "a larger window or a structural split"
    )
    shown = runner.invoke(app, ["plan", "candidates.toml", "--labels", "labels.json"]).stdout
    assert '"Customs clearance" sits 88 characters before the evidence' in shown
    assert "chars80-ov24: overlap 24 cannot hold it: longer than the window" in shown


def test_a_span_a_candidate_cuts_names_the_boundary_and_the_overlap_that_holds_it(
    seed2: Path,
) -> None:
    # "ship the same day" (38..55) sits across the first cut of 45-char windows. A window
    # [a, a + 45) holds ≥ 80 % of it (14 of 17) when 7 ≤ a ≤ 41; windows start at multiples
    # of 45 - overlap, so every overlap from 4 (step 41) holds it, and 3 (step 42) does not.
    (seed2 / "candidates.toml").write_text(
        SEED_002_CANDIDATES.replace("size = 80\noverlap = 0", "size = 45\noverlap = 0"),
        encoding="utf-8",
    )
    data = plan_json("candidates.toml", "--labels", "labels.json")
    noon = next(s for s in data["spans"] if s["query"] == "noon")
    cut = noon["cuts"][0]
    assert cut["candidate"] == "chars80-ov0"
    assert [(b["offset"], b["before"], b["after"]) for b in cut["boundaries"]] == [
        (45, " ship th", "e same d")
    ]
    assert cut["hold"]["words"] == (
        "overlap 0 cannot hold it: overlap ≥ 4 at this size (45 chars) holds it where it sits"
    )


def test_seed_001_loss_at_r_efunds_reads_no_signal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(seed_001(tmp_path / "seed-001"))
    ran = runner.invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert ran.exit_code == 0, ran.output
    assert ran.stdout.startswith("plan chars200: 2 chunks")
    assert "refunds no signal" in " ".join(ran.stdout.split())
    shown = runner.invoke(
        app, ["show", "latest", "refunds", "--candidate", "chars160", "--corpus", "corpus"]
    )
    assert shown.exit_code == 0, shown.output
    assert "chars160 cuts it at 160" in shown.stdout
    assert (
        "chars160 — chunk: no signal (a chunk holds it, but every top-k chunk scored 0: "
        "no query word found" in shown.stdout
    )


def test_without_labels_the_chunk_statistics_alone_said_so(seed2: Path) -> None:
    result = runner.invoke(app, ["plan", "candidates.toml", "--corpus", "corpus"])
    assert result.exit_code == 0, result.output
    assert "no labels: chunk statistics alone" in result.stdout
    assert "Ceiling" not in result.stdout
    data = plan_json("candidates.toml", "--corpus", "corpus")
    assert data["queries"] is None
    assert all(c["ceilings"] == [] for c in data["candidates"])


CHUNKS_CANDIDATES = """\
[settings]
baseline = "ours"
retriever = "lexical"

[[candidate]]
name = "ours"
splitter = "chunks"
options = { path = "chunks.jsonl" }
"""


def test_a_chunk_file_candidate_is_planned_in_characters(seed2: Path) -> None:
    """A chunk file has no unit: the plan measures its spans in characters, not a crash."""
    (seed2 / "candidates.toml").write_text(CHUNKS_CANDIDATES, encoding="utf-8")
    rows = [{"doc": "shipping.md", "start": 0, "end": 300},
            {"doc": "shipping.md", "start": 300, "end": 502}]  # fmt: skip
    (seed2 / "chunks.jsonl").write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    data = plan_json("candidates.toml", "--labels", "labels.json")
    assert [c["figures"]["chunk_count"] for c in data["candidates"]] == [2]


def _bad_chunk_file(folder: Path) -> None:
    (folder / "candidates.toml").write_text(CHUNKS_CANDIDATES, encoding="utf-8")
    rows = [{"doc": "shipping.md", "start": 0, "end": 300},
            {"doc": "shipping.md", "start": 200, "end": 250},
            {"doc": "shipping.md", "start": 300, "end": 502}]  # fmt: skip
    (folder / "chunks.jsonl").write_text("\n".join(json.dumps(r) for r in rows), "utf-8")


def _other_corpus_labels(folder: Path) -> None:
    data = json.loads((folder / "labels.json").read_text("utf-8"))
    data["corpus"]["hash"] = "sha256:" + "0" * 64
    data["corpus"]["documents"] = {"elsewhere.md": "sha256:" + "1" * 64}
    (folder / "labels.json").write_text(json.dumps(data), "utf-8")


def _overlap_too_big(folder: Path) -> None:
    text = SEED_002_CANDIDATES.replace("overlap = 24", "overlap = 80")
    (folder / "candidates.toml").write_text(text, encoding="utf-8")


def _malformed(folder: Path) -> None:
    (folder / "candidates.toml").write_text("[settings\n", encoding="utf-8")


HOSTILE = [
    (_bad_chunk_file, "ours", "a chunk that lies inside another names it, as eval does"),
    (_other_corpus_labels, "these labels are for another corpus", "another corpus's labels"),
    (_overlap_too_big, "overlap", "overlap >= size"),
    (_malformed, "malformed TOML", "not TOML"),
]


@pytest.mark.parametrize(("spoil", "said", "why"), HOSTILE, ids=[h[2] for h in HOSTILE])
def test_bad_input_is_refused_as_eval_refuses_it(
    seed2: Path, spoil: Any, said: str, why: str
) -> None:
    spoil(seed2)
    planned = runner.invoke(app, ["plan", "candidates.toml", "--labels", "labels.json"])
    evaluated = runner.invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert planned.exit_code == evaluated.exit_code == 2
    assert said in planned.stderr
    assert planned.stderr == evaluated.stderr, why
    assert "Traceback" not in planned.output
    assert not (seed2 / ".spanlab" / "runs").exists() or not any(
        (seed2 / ".spanlab" / "runs").iterdir()
    )


def test_a_candidates_file_and_a_preset_together_are_refused(seed2: Path) -> None:
    result = runner.invoke(app, ["plan", "candidates.toml", "--preset", "chroma-report"])
    assert result.exit_code == 2
    assert "give a candidates file or --preset, not both or neither" in result.stderr


MINILM_CANDIDATES = SEED_002_CANDIDATES.replace('retriever = "lexical"', 'retriever = "chroma"')


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
    }


def test_plan_writes_nothing_to_the_cache_or_chroma(
    seed2: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evaluator.embedding.cache import EmbeddingCache

    (seed2 / "candidates.toml").write_text(MINILM_CANDIDATES, encoding="utf-8")
    store = seed2 / "store"
    store.mkdir()
    monkeypatch.setenv("SPANLAB_CACHE", str(store / "embeddings.db"))
    first = plan_json("candidates.toml", "--labels", "labels.json")
    assert os.listdir(store) == []  # no cache made
    assert not (seed2 / ".spanlab" / "chroma").exists()
    assert first["candidates"][0]["cost"]["cached"] == 0
    assert first["candidates"][0]["figures"]["vector_bytes"] == 7 * 384 * 4
    with EmbeddingCache(store / "embeddings.db") as cache:
        cache.measured("not this model", 10, 1.0)
    before = listing(seed2)
    plan_json("candidates.toml", "--labels", "labels.json")
    assert listing(seed2) == before
