"""The RunFile is run.json: written, read back and written again, a run is the same file,
byte for byte the file spanlab wrote before the RunFile existed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.metrics.compare import Cause, Status
from evaluator.pipeline.record import run_file
from evaluator.runs.model import RunFile, read_run, write_run_file
from evaluator.runs.model_json import RunFileError
from evaluator.runs.model_queries import EvidenceRef
from tests.evaluator.runs.conftest import SmallRun, legacy_text


@pytest.mark.parametrize("include_text", [False, True])
def test_a_written_run_reads_back_to_the_same_document_and_bytes(
    small_run: SmallRun, tmp_path: Path, include_text: bool
) -> None:
    run = run_file(small_run.result, include_text=include_text)
    write_run_file(run, tmp_path / "run.json")
    raw = (tmp_path / "run.json").read_text("utf-8")
    read = read_run(tmp_path)
    assert read.to_json() == json.loads(raw)
    assert read.dumps() == raw
    assert read == run
    assert raw == legacy_text(small_run.result, include_text=include_text)


def test_the_run_file_holds_typed_values(small_run: SmallRun, tmp_path: Path) -> None:
    write_run_file(run_file(small_run.result, include_text=False), tmp_path / "run.json")
    run = read_run(tmp_path)
    assert (run.names, run.baseline.name, run.others) == (["c60-ov20", "c30"], "c60-ov20", ["c30"])
    assert run.manifest.settings.k == 2 and run.manifest.settings.retriever == "lexical"
    assert run.manifest.candidates_file.hash == "sha256:f00"
    assert run.manifest.skipped_queries == ("q-0005",)
    assert run.candidate("c30").spec.size == 30
    q1 = run.queries["q-0001"]
    assert (q1.boundary, q1.slices, q1.text) == ("condition-consequence", ("critical",), None)
    assert q1.evidence == (EvidenceRef("refunds.md", 41, 80),)
    assert len(q1.candidates["c30"].ranked) == 10
    statuses = {q.candidates["c30"].status for q in run.queries.values()}
    assert statuses <= {*Status, None}
    causes = {c.cause for c in run.comparisons["c30"].queries.values()}
    assert causes <= {*Cause, None}
    assert run.queries["q-0004"].candidates["c30"].first_match_ranks is None
    assert [(g.scope, g.slice) for g in run.gates] == [("overall", None),
                                                       ("slice:critical", "critical")]  # fmt: skip


def test_an_unknown_candidate_is_a_clear_error(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=False)
    with pytest.raises(RunFileError, match="no candidate 'c99' in run"):
        run.candidate("c99")


def test_a_run_from_its_own_json_is_equal(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=True)
    assert RunFile.from_json(json.loads(run.dumps()), file="run.json") == run


def test_a_run_holds_both_match_rules(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=False)
    assert (run.match, run.other_match, run.both_rules) == ("chunk", "union", True)
    c30 = run.candidate("c30")
    assert c30.other_metrics is not None and "evidence_recall@k" in c30.other_metrics
    # Union can only add matches: recall under it is never lower.
    union, chunk = c30.metric_under("evidence_recall@k", False), c30.metric("evidence_recall@k")
    assert union is not None and chunk is not None and union >= chunk
    # A figure the rule does not change reads the same under both.
    assert c30.metric_under("chunk_count", False) == c30.metric("chunk_count")
    assert set(run.other_comparisons) == {"c30"}
    other = run.queries["q-0001"].candidates["c30"].other
    assert other is not None and len(other.span_causes) == 1


def test_a_run_written_before_both_rules_were_kept_still_reads(
    small_run: SmallRun, tmp_path: Path
) -> None:
    data = run_file(small_run.result, include_text=False).to_json()
    data.pop("comparisons_other_rule")
    for cand in data["candidates"].values():
        cand.pop("metrics_other_rule")
    for query in data["queries"].values():
        for result in query["candidates"].values():
            result.pop("other_rule")
    old = RunFile.from_json(data, file="run.json")
    assert not old.both_rules and old.other_comparisons == {}
    assert old.candidate("c30").metric_under("evidence_recall@k", False) is None
    assert old.queries["q-0001"].candidates["c30"].other is None


def test_an_other_rule_comparison_of_no_candidate_is_refused(small_run: SmallRun) -> None:
    data = run_file(small_run.result, include_text=False).to_json()
    data["comparisons_other_rule"]["c99"] = data["comparisons_other_rule"]["c30"]
    with pytest.raises(RunFileError, match="compares no candidate of the run") as caught:
        RunFile.from_json(data, file="run.json")
    assert caught.value.key == "comparisons_other_rule.c99"
