"""Ranked items that name chunks by the team's own ids (§19: "ids through a chunk file"):
with `splitter = "chunks"`, an id of the chunk file resolves to the chunk on that line, so
shadow-traffic logs in the team's ids are measured as the chunks they name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evaluator.chunk import Chunk
from evaluator.chunking import SplitterSpec, chunk_corpus
from evaluator.chunking.exported import chunk_ids
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.items import ChunkLookup, Where
from evaluator.retrieval.lexical import LexicalRetriever
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError

DEMO = Path(__file__).resolve().parents[3] / "data" / "demo"
TEXTS = {"a.md": "Refunds take 14 days. Ask us.", "b.md": "Refund policy"}


def _team_id(n: int) -> str:
    return f"kb/{n:04d} — ünïcode id"  # arbitrary text, not spanlab's hex ids


def _write(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_the_chunk_file_s_ids_name_its_chunks(tmp_path: Path) -> None:
    path = _write(tmp_path / "chunks.jsonl", [
        {"id": "α/1", "doc": "a.md", "start": 0, "end": 21},
        {"id": 7, "doc": "a.md", "text": "Ask us."},
        {"doc": "b.md", "start": 0, "end": 13},
    ])  # fmt: skip
    assert chunk_ids(path, TEXTS) == {"α/1": ("a.md", 0, 21), "7": ("a.md", 22, 29)}
    chunks = [Chunk("h1", "a.md", 0, 21), Chunk("h2", "a.md", 22, 29), Chunk("h3", "b.md", 0, 13)]
    lookup = ChunkLookup(chunks, TEXTS, chunk_ids(path, TEXTS))
    where = Where("shadow.jsonl", 1)
    assert lookup.item({"id": "α/1"}, where).id == "h1"
    assert lookup.item({"id": "7"}, where).id == "h2"
    assert lookup.item({"id": "h3"}, where).id == "h3"  # spanlab's own ids still resolve
    with pytest.raises(ConfigError, match="id 'kb/9' is not a chunk of this candidate"):
        lookup.item({"id": "kb/9"}, where)


BAD_IDS = [
    ([{"id": "x", "doc": "a.md", "start": 0, "end": 21},
      {"id": "x", "doc": "a.md", "start": 22, "end": 29}],
     2, "id 'x' is given again (first on line 1)"),
    ([{"id": "", "doc": "a.md", "start": 0, "end": 21}], 1,
     "'id' must be non-empty text or a whole number"),
    ([{"id": ["x"], "doc": "a.md", "start": 0, "end": 21}], 1,
     "'id' must be non-empty text or a whole number"),
    ([{"id": True, "doc": "a.md", "start": 0, "end": 21}], 1,
     "'id' must be non-empty text or a whole number"),
]  # fmt: skip


@pytest.mark.parametrize(("lines", "line", "message"), BAD_IDS, ids=[b[2] for b in BAD_IDS])
def test_a_bad_or_repeated_id_is_refused_naming_file_and_line(
    tmp_path: Path, lines: list[dict[str, Any]], line: int, message: str
) -> None:
    path = _write(tmp_path / f"chunks-{len(lines)}-{line}.jsonl", lines)
    with pytest.raises(ConfigError) as caught:
        chunk_ids(path, TEXTS)
    assert (caught.value.message, caught.value.file, caught.value.line) == (message, path, line)
    assert caught.value.key == "id"


CANDIDATES = """
[settings]
baseline = "team"
k = 5
depth = 10
retriever = "lexical"

[[candidate]]
name = "team"
splitter = "chunks"
options = { path = "chunks.jsonl" }

[[candidate]]
name = "shadow"
splitter = "chunks"
options = { path = "chunks.jsonl" }
retriever = "ranked"
ranked = "shadow.jsonl"
"""


def test_shadow_logs_in_the_team_s_ids_measure_as_the_chunks_they_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log ranks what the lexical scorer ranks, by team id: both candidates must agree."""
    monkeypatch.chdir(tmp_path)
    corpus = Corpus.read(DEMO / "corpus")
    chunks = chunk_corpus(SplitterSpec("chars", 400, 0), corpus)
    team = {(c.doc, c.start, c.end): _team_id(n) for n, c in enumerate(chunks)}
    lines = [{"id": team[(c.doc, c.start, c.end)], "doc": c.doc, "start": c.start,
              "end": c.end} for c in chunks]  # fmt: skip
    _write(tmp_path / "chunks.jsonl", lines)
    lexical = LexicalRetriever(chunks, corpus.texts())
    queries = json.loads((DEMO / "labels.json").read_text("utf-8"))["queries"]
    logged = [{"query": q["id"], "ranked": [{"id": team[(r.chunk.doc, r.chunk.start,
                                                          r.chunk.end)]} for r in ranked]}
              for q in queries
              for ranked in lexical.search([QueryInput(q["id"], q["text"])], 10)]  # fmt: skip
    _write(tmp_path / "shadow.jsonl", logged)
    (tmp_path / "c.toml").write_text(CANDIDATES, encoding="utf-8")
    args = ["eval", "c.toml", "--labels", str(DEMO / "labels.json"), "--corpus",
            str(DEMO / "corpus"), "--db", "db.sqlite", "--json", "run.json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    run = json.loads((tmp_path / "run.json").read_text("utf-8"))
    for qid, entry in run["queries"].items():
        ours, theirs = entry["candidates"]["team"], entry["candidates"]["shadow"]
        assert [r[:4] for r in theirs["ranked"]] == [r[:4] for r in ours["ranked"]], qid
    assert run["candidates"]["shadow"]["index"]["queries_missing"] == 0
