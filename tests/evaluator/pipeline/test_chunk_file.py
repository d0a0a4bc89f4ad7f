"""The run folder alone recomputes oracle recall and precision-Ω (§17): chunks.tsv holds
every candidate's chunks as offsets (prefix sources included), run.json the evidence.

The recomputation below is written again from the design's definitions, on plain tuples,
without spanlab's metric code, and compared with what run.json records.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evaluator.chunk import Chunk
from evaluator.runs.chunk_file import chunk_table_tsv
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import to_json, write_json
from labeler.core.values import Query, Span
from tests.evaluator.pipeline.test_demo_verdict_recomputed import merged

TABLE = (
    "# Warranty\n\nIntro text about the warranty and who it covers.\n\n"
    "## Periods\n\n"
    "| Product | Period | With Care |\n"
    "|---------|--------|-----------|\n"
    "| Thermostat | 3 years | 5 years |\n"
    "| Sensor | 2 years | 4 years |\n"
    "| Hub | 2 years | 4 years |\n"
    "| Renewed devices | 1 year | 3 years |\n\n"
    "The period begins on the delivery date.\n"
)
OTHER = "Shipping takes three days. Express takes one day and costs nine euros.\n"
CANDIDATES = """
[settings]
baseline = "c80-ov20"
k = 1
depth = 10
retriever = "lexical"

[[candidate]]
name = "c80-ov20"
splitter = "chars"
size = 80
overlap = 20

[[candidate]]
name = "md-90"
splitter = "markdown"
size = 90

[[candidate]]
name = "c40-window1"
splitter = "chars"
size = 40
overlap = 0
context = { window = 1 }

[[candidate]]
name = "c40-parent160"
splitter = "chars"
size = 40
overlap = 0
[candidate.context.parent]
splitter = "chars"
size = 160
overlap = 0
"""


def span(corpus: Corpus, doc: str, quote: str) -> Span:
    start = corpus.text(doc).index(quote)
    return Span.from_text(corpus.text(doc), doc, start, start + len(quote))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "warranty.md").write_text(TABLE, "utf-8")
    (tmp_path / "corpus" / "shipping.txt").write_text(OTHER, "utf-8")
    corpus = Corpus.read(tmp_path / "corpus")
    queries = [
        Query("q-1", "renewed devices with care years", evidence=(
            span(corpus, "warranty.md", "| Product | Period | With Care |"),
            span(corpus, "warranty.md", "| Renewed devices | 1 year | 3 years |"))),
        Query("q-2", "express shipping cost", evidence=(
            span(corpus, "shipping.txt", "Express takes one day and costs nine euros."),)),
        Query("q-3", "when does the period begin", evidence=(
            span(corpus, "warranty.md", "The period begins on the delivery date."),)),
        Query("q-4", "every period", evidence=(  # 133 rows' characters: no chunk holds them
            span(corpus, "warranty.md", "| Thermostat" + TABLE.split("| Thermostat")[1][:121]),
            span(corpus, "warranty.md", "| Hub | 2 years | 4 years |"))),
    ]  # fmt: skip
    write_json(to_json(queries, corpus), tmp_path / "labels.json")
    (tmp_path / "candidates.toml").write_text(CANDIDATES, "utf-8")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["init", "corpus"]).exit_code == 0
    result = runner.invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert result.exit_code == 0, result.output
    return sorted((tmp_path / ".spanlab" / "runs").iterdir())[-1]


Ranges = list[tuple[int, int]]
Evidence = list[dict[str, int | str]]


def read_table(path: Path, unit: str = "chunk") -> dict[str, dict[str, list[Ranges]]]:
    """candidate -> doc -> per `unit` row [own range, *prefix source ranges]."""
    out: dict[str, dict[str, list[Ranges]]] = {}
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, dialect="excel-tab")
        for row in rows:
            if row["unit"] != unit:
                continue
            pairs = [p.split("-") for p in row["prefix_source"].split()]
            ranges = [(int(row["start"]), int(row["end"]))] + [(int(a), int(b)) for a, b in pairs]
            out.setdefault(row["candidate"], {}).setdefault(row["doc"], []).append(ranges)
    return out


def size(ranges: Ranges) -> int:
    return sum(b - a for a, b in merged(ranges))


def holds(chunk: Ranges, s: int, e: int, threshold: float) -> bool:
    if any(a <= s and e <= b for a, b in chunk):
        return True
    shared = size([(max(a, s), min(b, e)) for a, b in chunk if max(a, s) < min(b, e)])
    return shared / (e - s) >= threshold


def oracle(chunks: dict[str, list[Ranges]], evidence: Evidence, t: float) -> float:
    held = [
        any(holds(c, int(x["start"]), int(x["end"]), t) for c in chunks.get(str(x["doc"]), []))
        for x in evidence
    ]
    return sum(held) / len(held)


def precision_omega(chunks: dict[str, list[Ranges]], evidence: Evidence) -> float:
    """Chroma's `_full_precision_score`, per evidence document, on own ranges only."""
    numerator = denominator = 0
    touched = False
    for doc in sorted({str(x["doc"]) for x in evidence}):
        refs = [(int(x["start"]), int(x["end"])) for x in evidence if x["doc"] == doc]
        meeting = [c[0] for c in chunks.get(doc, []) if any(
            c[0][0] <= e and c[0][1] >= s for s, e in refs)]  # fmt: skip
        touched = touched or bool(meeting)
        inside = [(max(a, s), min(b, e)) for a, b in meeting for s, e in refs
                  if max(a, s) <= min(b, e)]  # fmt: skip
        numerator += size(inside)
        left = [(p, p + 1) for s, e in refs for p in range(s, e)
                if not any(a <= p < b for a, b in meeting)]  # fmt: skip
        denominator += size(meeting + left)
    return numerator / denominator if touched else 0.0


def test_oracle_and_precision_omega_are_recomputed_from_the_folder_alone(folder: Path) -> None:
    run = json.loads((folder / "run.json").read_text("utf-8"))
    tables = read_table(folder / "chunks.tsv")
    threshold = run["manifest"]["settings"]["coverage_threshold"]
    assert set(tables) == {"c80-ov20", "md-90", "c40-window1", "c40-parent160"}
    assert any(len(c) > 1 for cs in tables["md-90"].values() for c in cs)  # prefixes there
    sent = {"c40-window1": read_table(folder / "chunks.tsv", "window"),
            "c40-parent160": read_table(folder / "chunks.tsv", "parent")}  # fmt: skip
    for name, record in run["candidates"].items():
        assert sum(len(cs) for cs in tables[name].values()) == record["metrics"]["chunk_count"]
        units = sent.get(name, tables)[name]  # a context candidate's oracle is on its units
        per_query = []
        for query in run["queries"].values():
            values = query["candidates"][name]["values"]
            o = oracle(units, query["evidence"], threshold)
            assert values["oracle_recall"] == pytest.approx(o), (name, query)
            p = precision_omega(units, query["evidence"])
            assert values["chroma_precision_omega"] == pytest.approx(p), (name, query)
            per_query.append(o)
        assert record["metrics"]["oracle_recall"] == pytest.approx(sum(per_query) / 4)
        if name not in sent:
            assert 0 < min(per_query) < 1  # a span no chunk holds: the check can fail


def test_the_header_in_md_90s_prefix_is_what_its_oracle_credits(folder: Path) -> None:
    run = json.loads((folder / "run.json").read_text("utf-8"))
    q1 = run["queries"]["q-1"]["candidates"]["md-90"]["values"]
    assert q1["oracle_recall"] == 1.0
    first = run["queries"]["q-1"]["evidence"][0]
    holders = [c for c in read_table(folder / "chunks.tsv")["md-90"]["warranty.md"]
               if holds(c, first["start"], first["end"], 0.8)]  # fmt: skip
    assert any(not (c[0][0] <= first["start"] and first["end"] <= c[0][1]) for c in holders)


def test_the_table_quotes_any_document_id_and_writes_offsets_only() -> None:
    chunks = [Chunk("x", 'odd\t"name".md', 0, 5), Chunk("y", "b.md", 5, 9, "# H\n", ((0, 3),))]
    text = chunk_table_tsv({"c": chunks})
    assert text == (
        "candidate\tunit\tdoc\tstart\tend\tprefix_source\tprefix_kind\n"
        'c\tchunk\t"odd\t""name"".md"\t0\t5\t\t\n'
        "c\tchunk\tb.md\t5\t9\t0-3\theading\n"
    )
    rows = list(csv.reader(text.splitlines(), dialect="excel-tab"))
    assert rows[1][2] == 'odd\t"name".md'


def sent_units(
    name: str,
    table: dict[str, list[Ranges]],
    units: dict[str, list[Ranges]],
    ranked: list[list[Any]],
    n: int,
) -> dict[str, Ranges]:
    """doc -> the ranges sent for the top n retrieved chunks, rebuilt from chunks.tsv alone:
    each chunk's parent (the parent row holding it), or its window of one neighbour a side
    (from the chunk rows in document order), windows that touch merged."""
    out: dict[str, Ranges] = {}
    for _id, doc, start, end, _score in ranked[:n]:
        if name.endswith("parent160"):
            (unit,) = [u[0] for u in units[doc] if u[0][0] <= start and end <= u[0][1]]
        else:
            own = sorted(c[0] for c in table[doc])
            i = own.index((start, end))
            unit = (own[max(i - 1, 0)][0], own[min(i + 1, len(own) - 1)][1])
            assert unit in [u[0] for u in units[doc]]  # the table's window row
        out.setdefault(doc, []).append(unit)
    return {doc: merged(rs) if name.endswith("window1") else sorted(set(rs))
            for doc, rs in out.items()}  # fmt: skip


@pytest.mark.parametrize(("name", "unit"), [("c40-window1", "window"),
                                            ("c40-parent160", "parent")])  # fmt: skip
def test_what_a_context_candidate_sends_is_rebuilt_from_the_folder_at_k_and_at_budget(
    folder: Path, name: str, unit: str
) -> None:
    run = json.loads((folder / "run.json").read_text("utf-8"))
    table = read_table(folder / "chunks.tsv")[name]
    units = read_table(folder / "chunks.tsv", unit)[name]
    settings, threshold = run["manifest"]["settings"], 0.8
    at_budget = []
    for qid, query in run["queries"].items():
        entry = query["candidates"][name]
        for n, key in ((settings["k"], "at k"), (entry["budget_cut"], "at budget")):
            sent = sent_units(name, table, units, entry["ranked"], n)
            held = [
                any(holds([r], int(e["start"]), int(e["end"]), threshold)
                    for r in sent.get(str(e["doc"]), []))
                for e in query["evidence"]
            ]  # fmt: skip
            recall = sum(held) / len(held)
            if key == "at k":
                assert recall == pytest.approx(entry["values"]["evidence_recall@k"]), qid
            else:
                at_budget.append(recall)
    measured = run["candidates"][name]["metrics_at_budget"]["evidence_recall@k"]
    assert sum(at_budget) / len(at_budget) == pytest.approx(measured)


def test_the_table_names_each_prefix_ranges_kind(folder: Path) -> None:
    with (folder / "chunks.tsv").open(encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f, dialect="excel-tab") if r["candidate"] == "md-90"]
    said = {k for r in rows for k in r["prefix_kind"].split()}
    assert said == {"heading", "table-header"}
    for r in rows:  # one kind per range; the table's head row is the last range
        kinds, ranges = r["prefix_kind"].split(), r["prefix_source"].split()
        assert len(kinds) == len(ranges)
        if "table-header" in kinds:
            assert kinds[-1] == "table-header"
            a, b = map(int, ranges[-1].split("-"))
            assert TABLE[a:b].startswith("| Product | Period | With Care |")


def test_run_json_records_the_tables_digest_and_a_changed_table_is_named(folder: Path) -> None:
    from evaluator.runs.chunk_file import read_chunk_table
    from evaluator.runs.model import read_run
    from evaluator.runs.model_json import RunFileError

    run = read_run(folder)
    text = (folder / "chunks.tsv").read_text("utf-8")
    assert run.chunk_table_sha256 == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    rows = read_chunk_table(folder, run)
    assert {r.unit for r in rows["c40-parent160"]} == {"chunk", "parent"}
    (folder / "chunks.tsv").write_text(text.replace("\t0\t40\t", "\t0\t41\t", 1), "utf-8")
    with pytest.raises(RunFileError) as refused:
        read_chunk_table(folder, run)
    assert "chunks.tsv does not match its run.json: its sha256 is sha256:" in refused.value.message
    assert str(folder / "chunks.tsv") == refused.value.file


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("chunk_table", "file"), "chunk_table.file: must be 'chunks.tsv'"),
        (("chunk_table", "sha256"), "chunk_table.sha256: must be sha256: and 64"),
        (("budget_cut",), "budget_cut: must lie between 0 and 10"),
    ],
)
def test_a_hostile_digest_or_cut_in_run_json_is_refused_naming_the_key(
    folder: Path, change: tuple[str, ...], said: str
) -> None:
    from evaluator.runs.model import RunFile
    from evaluator.runs.model_json import RunFileError

    data = json.loads((folder / "run.json").read_text("utf-8"))
    if change == ("budget_cut",):
        data["queries"]["q-1"]["candidates"]["c80-ov20"]["budget_cut"] = 11  # depth is 10
    else:
        data["chunk_table"][change[1]] = "../../etc/passwd"
    with pytest.raises(RunFileError) as refused:
        RunFile.from_json(data, file="run.json")
    assert (
        f"run.json, key queries.q-1.candidates.c80-ov20.{said}" in str(refused.value)
        if (change == ("budget_cut",))
        else f"run.json, key {said}" in str(refused.value)
    )


def test_eval_with_no_candidates_named_takes_the_folders_own_and_says_so(folder: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "--labels", "labels.json"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("candidates candidates.toml (none named: the project folder")
    runs = sorted((folder.parent).iterdir())
    assert len(runs) == 2  # a second run, of the same candidates file
    first, second = (json.loads((r / "run.json").read_text("utf-8")) for r in runs)
    assert first["manifest"]["candidates_file"] == second["manifest"]["candidates_file"]


@pytest.mark.parametrize("name", ["c40-window1", "c40-parent160", "md-90"])
def test_diff_shows_both_bases_and_its_budget_figures_are_the_runs(folder: Path, name: str) -> None:
    run = json.loads((folder / "run.json").read_text("utf-8"))
    args = ["diff", "latest", "latest", "--candidate", "c80-ov20", "--against-candidate", name]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    budget = run["manifest"]["context_budget"]["budget"]
    assert f"bases: @k at k = 1; at budget at A's {budget:,} and B's {budget:,} tokens" in (
        result.stdout
    )
    at_b = run["comparisons_at_budget"][name]["overall"]
    delta = at_b["deltas"]["evidence_recall@k"]
    said = next(x for x in lines if x.startswith("Δ recall at budget "))
    assert said.startswith(f"Δ recall at budget {'+' if delta >= 0 else ''}{delta:.3f} ")
    assert f"{at_b['counts']['gained']} gained, {at_b['counts']['lost']} lost" in said
    assert f"lost at budget ({at_b['counts']['lost']})" in lines
    at_k = run["comparisons"][name]["overall"]["counts"]
    assert f"lost at k = 1 ({at_k['lost']})" in lines


def context(
    name: str,
    tables: dict[str, dict[str, list[Ranges]]],
    units: dict[str, list[Ranges]],
    ranked: list[list[Any]],
    n: int,
) -> dict[str, list[Ranges]]:
    """doc -> each unit sent for the top n (own range, then its prefix sources)."""
    if name in ("c40-window1", "c40-parent160"):
        sent = sent_units(name, tables[name], units, ranked, n)
        return {doc: [[r] for r in rs] for doc, rs in sent.items()}
    out: dict[str, list[Ranges]] = {}
    for _id, doc, start, end, _score in ranked[:n]:
        (row,) = [c for c in tables[name][doc] if c[0] == (start, end)]
        out.setdefault(doc, []).append(row)
    return out


def test_every_hit_and_change_of_the_verdict_is_recomputed_from_the_folder(folder: Path) -> None:
    """hit, document hit and unique evidence per query at k, hit at budget, and gained and
    lost against the baseline at both: from run.json's ranked lists and budget cuts and
    chunks.tsv's rows (prefix sources included) alone, compared with what run.json says."""
    run = json.loads((folder / "run.json").read_text("utf-8"))
    tables = read_table(folder / "chunks.tsv")
    units = {n: read_table(folder / "chunks.tsv", u).get(n, {})
             for n, u in (("c40-window1", "window"), ("c40-parent160", "parent"))}  # fmt: skip
    k, base = run["manifest"]["settings"]["k"], run["manifest"]["settings"]["baseline"]
    hits: dict[tuple[str, str], tuple[bool, bool]] = {}
    for qid, query in run["queries"].items():
        for name, entry in query["candidates"].items():
            found = []
            for n in (k, entry["budget_cut"]):
                sent = context(name, tables, units.get(name, {}), entry["ranked"], n)
                found.append([any(holds(u, int(e["start"]), int(e["end"]), 0.8)
                                  for u in sent.get(str(e["doc"]), []))
                              for e in query["evidence"]])  # fmt: skip
            values = entry["values"]
            assert values["hit@k"] is all(found[0]), (name, qid)
            assert values["unique_evidence@k"] == sum(found[0]), (name, qid)
            docs = {str(e[1]) for e in entry["ranked"][:k]}
            every_doc = all(str(e["doc"]) in docs for e in query["evidence"])
            assert values["document_hit@k"] is every_doc, (name, qid)
            hits[name, qid] = (all(found[0]), all(found[1]))
    for name in run["comparisons"]:
        for basis, key in ((0, "comparisons"), (1, "comparisons_at_budget")):
            lost = sum(hits[base, q][basis] and not hits[name, q][basis] for q in run["queries"])
            gained = sum(hits[name, q][basis] and not hits[base, q][basis] for q in run["queries"])
            counts = run[key][name]["overall"]["counts"]
            assert (counts["lost"], counts["gained"]) == (lost, gained), (name, key)
    assert any(h[0] != h[1] for h in hits.values())  # k and budget differ somewhere
