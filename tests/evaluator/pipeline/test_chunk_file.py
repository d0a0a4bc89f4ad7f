"""The run folder alone recomputes oracle recall and precision-Ω (§17): chunks.tsv holds
every candidate's chunks as offsets (prefix sources included), run.json the evidence.

The recomputation below is written again from the design's definitions, on plain tuples,
without spanlab's metric code, and compared with what run.json records.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.chunk import Chunk
from evaluator.runs.chunk_file import chunk_table_tsv
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import to_json, write_json
from labeler.core.values import Query, Span

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


def read_table(path: Path) -> dict[str, dict[str, list[Ranges]]]:
    """candidate -> doc -> per chunk [own range, *prefix source ranges]."""
    out: dict[str, dict[str, list[Ranges]]] = {}
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, dialect="excel-tab")
        for row in rows:
            pairs = [p.split("-") for p in row["prefix_source"].split()]
            ranges = [(int(row["start"]), int(row["end"]))] + [(int(a), int(b)) for a, b in pairs]
            out.setdefault(row["candidate"], {}).setdefault(row["doc"], []).append(ranges)
    return out


def merged(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
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
    assert set(tables) == {"c80-ov20", "md-90"}
    assert any(len(c) > 1 for cs in tables["md-90"].values() for c in cs)  # prefixes there
    for name, record in run["candidates"].items():
        assert sum(len(cs) for cs in tables[name].values()) == record["metrics"]["chunk_count"]
        per_query = []
        for query in run["queries"].values():
            values = query["candidates"][name]["values"]
            o = oracle(tables[name], query["evidence"], threshold)
            assert values["oracle_recall"] == pytest.approx(o), (name, query)
            p = precision_omega(tables[name], query["evidence"])
            assert values["chroma_precision_omega"] == pytest.approx(p), (name, query)
            per_query.append(o)
        assert record["metrics"]["oracle_recall"] == pytest.approx(sum(per_query) / 4)
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
        "candidate\tdoc\tstart\tend\tprefix_source\n"
        'c\t"odd\t""name"".md"\t0\t5\t\n'
        "c\tb.md\t5\t9\t0-3\n"
    )
    rows = list(csv.reader(text.splitlines(), dialect="excel-tab"))
    assert rows[1][1] == 'odd\t"name".md'
