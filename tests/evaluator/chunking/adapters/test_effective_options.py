"""Issue 23: run.json records the size and overlap each library really runs with — its own
default when the option is unset (langchain's 200, not 0), its own reading of a fraction
(chonkie's 0.25 of 100 is 25) or the value as given (semchunk's 0.25 stays 0.25)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import chonkie
import langchain_text_splitters as lc
import pytest
from llama_index.core import node_parser
from semchunk import semchunk
from typer.testing import CliRunner

from evaluator.candidates import parse
from evaluator.chunking import SplitterSpec
from evaluator.runs.model_json import Reader
from evaluator.runs.model_parts import read_spec
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import to_json, write_json
from labeler.core.values import Query, Span


def _recorded(splitter: str, options: str) -> tuple[Any, Any]:
    text = '[settings]\nbaseline = "lib"\n[[candidate]]\nname = "lib"\n'
    text += f'splitter = "{splitter}"\n[candidate.options]\n{options}\n'
    fields = parse(tomllib.loads(text), file="c.toml").candidate("lib").spec.fingerprint_fields()
    return fields["size"], fields["overlap"]


def _chars(text: str) -> list[int]:
    return [0] * len(text)


@pytest.mark.parametrize(
    ("splitter", "options", "kwargs"),
    [
        ("RecursiveCharacterTextSplitter", "", {}),
        ("RecursiveCharacterTextSplitter", "chunk_size = 400\nchunk_overlap = 50",
         {"chunk_size": 400, "chunk_overlap": 50}),
        ("CharacterTextSplitter", "chunk_size = 300", {"chunk_size": 300}),
    ],
)  # fmt: skip
def test_langchain_records_its_own_size_and_overlap(
    splitter: str, options: str, kwargs: dict[str, Any]
) -> None:
    own = getattr(lc, splitter)(**kwargs)
    recorded = _recorded(f"langchain:{splitter}", options)
    assert recorded == (own._chunk_size, own._chunk_overlap)
    assert recorded != (0, 0) and recorded[1] == kwargs.get("chunk_overlap", 200)


@pytest.mark.parametrize(
    ("splitter", "options", "kwargs"),
    [
        ("SentenceSplitter", "", {}),
        ("SentenceSplitter", "chunk_size = 256\nchunk_overlap = 30",
         {"chunk_size": 256, "chunk_overlap": 30}),
        ("TokenTextSplitter", "", {}),
        ("TokenTextSplitter", "chunk_overlap = 7", {"chunk_overlap": 7}),
    ],
)  # fmt: skip
def test_llama_index_records_its_own_size_and_overlap(
    splitter: str, options: str, kwargs: dict[str, Any]
) -> None:
    own = getattr(node_parser, splitter)(tokenizer=_chars, **kwargs)
    recorded = _recorded(f"llama-index:{splitter}", options)
    assert recorded == (own.chunk_size, own.chunk_overlap)
    assert recorded[1] > 0  # llama-index's defaults overlap (200 and 20)


@pytest.mark.parametrize(
    ("splitter", "options", "kwargs", "overlap"),
    [
        ("SentenceChunker", "", {}, 0),
        ("SentenceChunker", "chunk_size = 200\nchunk_overlap = 40",
         {"chunk_size": 200, "chunk_overlap": 40}, 40),
        ("TokenChunker", "", {}, 0),
        ("TokenChunker", "chunk_size = 100\nchunk_overlap = 0.25",
         {"chunk_size": 100, "chunk_overlap": 0.25}, 25),
    ],
)  # fmt: skip
def test_chonkie_records_its_own_size_and_overlap(
    splitter: str, options: str, kwargs: dict[str, Any], overlap: int
) -> None:
    own = getattr(chonkie, splitter)(tokenizer="character", **kwargs)
    recorded = _recorded(f"chonkie:{splitter}", options)
    assert recorded == (own.chunk_size, own.chunk_overlap) == (own.chunk_size, overlap)


def test_chonkie_recursive_has_no_overlap_and_records_none() -> None:
    own = chonkie.RecursiveChunker(tokenizer="character", chunk_size=500)
    assert getattr(own, "chunk_overlap", None) is None
    assert _recorded("chonkie:RecursiveChunker", "chunk_size = 500") == (500, 0)


@pytest.mark.parametrize(("given", "overlap"), [("", 0), ("overlap = 0.25", 0.25),
                                                 ("overlap = 10", 10)])  # fmt: skip
def test_semchunk_records_the_overlap_as_given(given: str, overlap: float) -> None:
    """semchunk takes the overlap per call (unset: none); a fraction is recorded as one."""
    own = semchunk.chunkerify(len, 120)
    size, recorded = _recorded(
        "semchunk", f"chunk_size = 120\ntokenizer_or_token_counter = 'character'\n{given}"
    )
    assert (size, recorded) == (own.chunk_size, overlap)
    assert type(recorded) is type(overlap)


@pytest.mark.parametrize(
    ("options", "recorded"),
    [("capacity = 80", (80, 0)), ("capacity = 80\noverlap = 5", (80, 5)),
     ("capacity = [40, 90]", (90, 0))],
)  # fmt: skip
def test_semantic_text_splitter_records_the_options_as_given(
    options: str, recorded: tuple[int, int]
) -> None:
    """Its Rust objects expose neither option; spanlab passes overlap 0 when unset."""
    assert _recorded("semantic-text-splitter:TextSplitter", options) == recorded


def test_a_fractional_overlap_survives_run_json() -> None:
    options = {"chunk_size": 60, "tokenizer_or_token_counter": "character", "overlap": 0.25}
    spec = SplitterSpec("semchunk", 0, options=options).validate("sc")
    fields = json.loads(json.dumps(spec.fingerprint_fields()))
    rebuilt = read_spec(Reader(fields, "run.json"))
    assert (rebuilt.overlap, rebuilt.fingerprint()) == (0.25, spec.fingerprint())


def test_a_built_in_splitter_refuses_a_fractional_overlap() -> None:
    from labeler.core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"overlap must be an integer, got 0\.5"):
        SplitterSpec("chars", 10, 0.5).validate("c")


CANDIDATES = """
[settings]
baseline = "lc-unset"
k = 2
retriever = "lexical"

[[candidate]]
name = "lc-unset"
splitter = "langchain:RecursiveCharacterTextSplitter"

[[candidate]]
name = "lc-50"
splitter = "langchain:RecursiveCharacterTextSplitter"
[candidate.options]
chunk_size = 120
chunk_overlap = 50

[[candidate]]
name = "sc-quarter"
splitter = "semchunk"
[candidate.options]
chunk_size = 60
tokenizer_or_token_counter = "character"
overlap = 0.25
"""

TEXT = (
    "Refunds are paid within 14 days when the order arrived damaged. Gift cards cannot be "
    "refunded. Sale items are final. Express shipping takes one day and costs 9 EUR.\n"
)


def test_run_json_records_the_libraries_own_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text(TEXT, encoding="utf-8")
    corpus = Corpus.read(tmp_path / "corpus")
    quote = "Gift cards cannot be refunded."
    start = TEXT.index(quote)
    evidence = (Span.from_text(corpus.text("a.md"), "a.md", start, start + len(quote)),)
    write_json(to_json([Query("q-0001", "gift cards", evidence=evidence)], corpus),
               tmp_path / "labels.json")  # fmt: skip
    (tmp_path / "candidates.toml").write_text(CANDIDATES, "utf-8")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["init", "corpus"]).exit_code == 0
    result = runner.invoke(app, ["gate", "candidates.toml", "--labels", "labels.json"])
    assert result.exit_code == 0, result.output
    folder = sorted((tmp_path / ".spanlab" / "runs").iterdir())[-1]
    raw = json.loads((folder / "run.json").read_text("utf-8"))
    splitters = {name: c["splitter"] for name, c in raw["candidates"].items()}
    default = lc.RecursiveCharacterTextSplitter()
    got = {name: (s["size"], s["overlap"]) for name, s in splitters.items()}
    assert got == {
        "lc-unset": (default._chunk_size, default._chunk_overlap),
        "lc-50": (120, 50),
        "sc-quarter": (60, 0.25),
    }
