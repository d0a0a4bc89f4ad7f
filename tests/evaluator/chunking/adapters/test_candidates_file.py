"""Library splitters in a candidates file: `[candidate.options]`, errors that name the
candidate and option, no size key needed, and a whitespace gap passes the sanity check."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from evaluator.candidates import parse
from evaluator.chunk import Chunk
from evaluator.chunking import SplitterSpec, chunk_corpus
from evaluator.chunking.adapters.registry import Entry
from evaluator.pipeline.sanity import SanityError, check_chunks
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError

DEMO_LIBRARIES = Path(__file__).resolve().parents[4] / "data" / "demo" / "candidates-libraries.toml"


def _file(splitter: str, options: str) -> dict[str, object]:
    text = f"""
[settings]
baseline = "lib"
[[candidate]]
name = "lib"
splitter = "{splitter}"
[candidate.options]
{options}
"""
    return tomllib.loads(text)


def test_options_table_reaches_the_spec() -> None:
    cfile = parse(_file("semchunk", "chunk_size = 50\ntokenizer_or_token_counter = 'character'"),
                  file="c.toml")  # fmt: skip
    spec = cfile.candidate("lib").spec
    assert spec.options == {"chunk_size": 50, "tokenizer_or_token_counter": "character"}
    assert spec.size == 50


@pytest.mark.parametrize(
    ("splitter", "options", "key", "words"),
    [
        ("semchunk", "chunk_size = 50", "options.tokenizer_or_token_counter", "missing option"),
        ("semchunk", "chunk_size = '50'\ntokenizer_or_token_counter = 'character'",
         "options.chunk_size", "must be int, got str"),
        ("chonkie:TokenChunker", "tokenizer = 'word'", "options", "refused: TokenChunker"),
        ("langchain:Nope", "chunk_size = 5", "size", "missing key 'size'"),
    ],
)  # fmt: skip
def test_errors_name_file_candidate_and_option(
    splitter: str, options: str, key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse(_file(splitter, options), file="c.toml")
    assert (caught.value.file, caught.value.key) == ("c.toml", key)
    assert caught.value.message.startswith("candidate 'lib': ")
    assert words in caught.value.message


def test_options_on_a_spanlab_splitter_are_refused() -> None:
    with pytest.raises(ConfigError, match="options are for library splitters only"):
        SplitterSpec("chars", 10, options={"chunk_size": 3}).validate("c")


def test_a_missing_extra_names_the_install() -> None:
    with pytest.raises(ConfigError) as caught:
        Entry("no-such-splitter-lib", "semchunk", "chunkerify", "chunk_size").version()
    assert "pip install no-such-splitter-lib" in (caught.value.hint or "")
    assert "[no-such-splitter-lib]" in (caught.value.hint or "")


def test_the_demo_library_file_parses_with_one_candidate_per_library() -> None:
    cfile = parse(tomllib.loads(DEMO_LIBRARIES.read_text("utf-8")), file="demo")
    libraries = {c.spec.fingerprint_fields()["version"].split()[-1].split("==")[0]
                 for c in cfile.candidates if c.spec.library}  # fmt: skip
    assert libraries == {"semchunk", "semantic-text-splitter", "chonkie",
                         "langchain-text-splitters", "llama-index-core"}  # fmt: skip


def test_trimmed_chunks_pass_sanity_but_a_word_left_out_does_not() -> None:
    corpus = Corpus.from_texts({"d": "alpha beta\n\ngamma"})
    spec = SplitterSpec("semantic-text-splitter:TextSplitter", 0, options={"capacity": 10})
    chunks = chunk_corpus(spec, corpus)
    assert [(c.start, c.end) for c in chunks] == [(0, 10), (12, 17)]
    check_chunks("lib", chunks, corpus)
    with pytest.raises(SanityError, match="from offset 10 are in no chunk"):
        check_chunks("lib", [Chunk("a", "d", 0, 10), Chunk("b", "d", 13, 17)], corpus)


def test_run_json_rebuilds_a_library_spec_with_the_same_fingerprint() -> None:
    import json

    from evaluator.runs.model_json import Reader
    from evaluator.runs.model_parts import read_spec

    options = {"chunk_size": 40, "chunk_overlap": 5, "separators": ["\n\n", " "]}
    spec = SplitterSpec("langchain:RecursiveCharacterTextSplitter", 40, options=options)
    spec = spec.validate("lc")  # the spec a run cuts with: the library's size and overlap
    fields = json.loads(json.dumps(spec.fingerprint_fields()))
    assert read_spec(Reader(fields, "run.json")).fingerprint() == spec.fingerprint()


def test_the_library_overlap_option_is_the_candidates_overlap() -> None:
    """run.json records fingerprint fields: "overlap": 0 for chunk_overlap = 50 misled."""
    cfile = parse(_file("langchain:RecursiveCharacterTextSplitter",
                        "chunk_size = 400\nchunk_overlap = 50"), file="c.toml")  # fmt: skip
    fields = cfile.candidate("lib").spec.fingerprint_fields()
    assert (fields["size"], fields["overlap"]) == (400, 50)
    assert fields["options"] == {"chunk_overlap": 50, "chunk_size": 400}
