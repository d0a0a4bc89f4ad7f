"""Every reader of user files (§13), fed random bytes, random nested JSON and TOML, and
valid files with one value swapped for a hostile one: only a SpanlabError ever escapes.

A reader may accept what it is given; it may never crash. The valid bases take the
random values deep into each parser, past the checks at the top of the file.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator import candidates
from evaluator.runs.model import read_run
from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.labels import labelset
from labeler.core.names import name_problem
from labeler.core.project import config
from labeler.core.values import Query, control_at

TEXT = "Refunds take 30 days. Cafe\u0301 au lait. 👍🏽\n"
CORPUS = Corpus.from_texts({"a.md": TEXT})

READERS: dict[str, Callable[[Path], object]] = {
    "spanlab": lambda p: labelset.read(p, CORPUS),
    **{
        name: (lambda n: lambda p: formats.get(n).read(p, CORPUS, existing=()))(name)
        for name in formats.FORMATS
        if name != "spanlab"
    },
    "candidates": candidates.read,
    "spanlab.toml": lambda p: config.load(p.parent),
    "run.json": lambda p: read_run(p.parent),
}
"""Reader name -> read the file at this path (spanlab.toml, run.json: its folder)."""
FIXED_NAMES = ("spanlab.toml", "run.json")
"""Readers that find their file by name in a folder."""

KEYS = sorted(
    {"format", "corpus", "hash", "normalization", "documents", "queries", "id", "text",
     "abstain", "boundary", "slices", "status", "notes", "evidence", "doc", "start", "end",
     "quote", "prefix", "suffix", "label_set_hash", "data", "title", "paragraphs", "context",
     "qas", "question", "answers", "answer_start", "is_impossible", "annotations", "result",
     "value", "type", "labels", "query_id", "settings", "candidate", "gates", "baseline", "k",
     "depth", "resamples", "seed", "name", "splitter", "size", "overlap", "unit", "max_lost",
     "slice", "db", "chroma_url", "encoding", "follow_symlinks", "embedding", "retriever",
     "trim_spans", "blind"}
)  # fmt: skip
"""Every key some reader looks for, so random trees reach past the first lookup."""

HOSTILE_TEXT = st.sampled_from(
    ["", "\x00", "\ud800", "a\udfffb", "e\u0301", "\u0301", "👍🏽", "\r\n", "..", "/etc/x.txt",
     "a\tb.md", "a.md", "rot13", "http://[::1:8000", "q-0001", "other", "x" * 20_000,
     "\x1b]52;c;UFdORUQ=\x1b\\", "\x1b]0;T\x07", "\x1b[2J", "\x1b]0;open", "\x9b2J",
     "a\u202eb", "\u2066x\u2069", "../../pwned", "a/b", "\u200f", "n" * 65]
)  # fmt: skip
LEAVES = st.one_of(
    st.none(), st.booleans(), HOSTILE_TEXT, st.text(max_size=8),
    st.integers(-(2**70), 2**70), st.sampled_from([0, 1, -1, 13, 20, 2**63]),
    st.floats(allow_nan=True, allow_infinity=True),
)  # fmt: skip
TREES = st.recursive(
    LEAVES,
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), kids, max_size=5)
    ),
    max_leaves=30,
)


def toml_value(value: Any) -> str:
    """A value as TOML inline syntax (what TOML cannot hold comes out malformed, on purpose)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps("" if value is None else value)


def toml_text(tree: Any) -> str:
    if not isinstance(tree, dict):
        return f"x = {toml_value(tree)}\n"
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in tree.items())


def bases() -> dict[str, Any]:
    """A valid file for each JSON reader, to swap values inside."""
    span = {"doc": "a.md", "start": 13, "end": 20, "quote": "30 days",
            "prefix": "Refunds take ", "suffix": TEXT[20:52]}  # fmt: skip
    query = {"id": "q-0001", "text": "How long?", "abstain": False, "boundary": "other",
             "slices": [], "status": "labelled", "notes": "", "evidence": [span]}  # fmt: skip
    ls = {"format": "spanlab.labelset/1", "queries": [query],
          "corpus": {"hash": CORPUS.hash, "documents": CORPUS.doc_hashes}}  # fmt: skip
    qa = {"id": "s1", "question": "Which?", "answers": [{"text": "Cafe\u0301", "answer_start": 22}]}
    sq = {"data": [{"title": "a.md", "paragraphs": [{"context": TEXT, "qas": [qa]}]}]}
    value = {"start": 13, "end": 20, "text": "30 days", "labels": ["evidence"]}
    task = {"data": {"text": TEXT, "doc": "a.md", "question": "How?", "query_id": "q-0002"},
            "annotations": [{"result": [{"type": "labels", "value": value}]}]}  # fmt: skip
    cands = {"settings": {"baseline": "a", "k": 3, "resamples": 10},
             "candidate": [{"name": "a", "splitter": "recursive", "size": 50}],
             "gates": {"max_lost": 1}}  # fmt: skip
    spans = [{"start": 13, "end": 20, "text": "30 days"}]
    prodigy = {"text": TEXT, "spans": spans, "meta": {"question": "How?"}, "_annotator_id": "u"}
    doccano = {"text": TEXT, "label": [[13, 20, "E"]], "question": "How?"}
    argilla = [
        {
            "fields": {"text": TEXT, "question": "How?"},
            "responses": {
                "evidence": [{"value": [{"label": "E", "start": 13, "end": 20}], "user_id": "u"}]
            },
        }
    ]
    ls_min = [{"text": TEXT, "question": "How?", "annotator": "u", "label": spans}]
    return {"spanlab": ls, "squad": sq, "label-studio": [task], "candidates": cands,
            "spanlab.toml": {"corpus": "c", "encoding": "utf-8"}, "prodigy": prodigy,
            "doccano": doccano, "argilla": argilla, "label-studio-min": ls_min}  # fmt: skip


def paths(tree: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    items = (
        tree.items()
        if isinstance(tree, dict)
        else enumerate(tree)
        if isinstance(tree, list)
        else ()
    )
    for key, child in items:
        out.extend(paths(child, (*here, key)))
    return out


def swapped(tree: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = dict(tree) if isinstance(tree, dict) else list(tree)
    copy[path[0]] = swapped(tree[path[0]], path[1:], value)
    return copy


def write(tmp: Path, reader: str, data: bytes) -> Path:
    suffix = {"prodigy": "jsonl", "doccano": "jsonl", "argilla": "json"}.get(reader, reader)
    path = tmp / (reader if reader in FIXED_NAMES else f"in.{suffix}")
    path.write_bytes(data)
    return path


def only_spanlab_errors(reader: str, path: Path) -> None:
    """Read; a refusal is fine, any other exception fails the test, and what is accepted
    keeps the rules of §13 (no control in a question or note, names that are names)."""
    with contextlib.suppress(SpanlabError):
        found = READERS[reader](path)
        for query in accepted_queries(found):
            assert control_at(query.text) is None and control_at(query.notes) is None
            assert not query.annotator or name_problem(query.annotator) is None
            assert all(name_problem(s) is None for s in query.slices)
        if isinstance(found, candidates.CandidatesFile):
            assert all(name_problem(c.name) is None for c in found.candidates)


def accepted_queries(found: object) -> tuple[Query, ...]:
    """The queries a label reader returned (an Imported or a LabelSet), else none."""
    queries = getattr(found, "queries", ())
    return tuple(q for q in queries if isinstance(q, Query))


def is_toml(reader: str) -> bool:
    return reader in ("candidates", "spanlab.toml")


FUZZ = settings(
    max_examples=150, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


@FUZZ
@given(reader=st.sampled_from(sorted(READERS)), data=st.binary(max_size=400))
def test_random_bytes(tmp_path: Path, reader: str, data: bytes) -> None:
    only_spanlab_errors(reader, write(tmp_path, reader, data))


@FUZZ
@given(
    reader=st.sampled_from(sorted(READERS)),
    tree=TREES,
    depth=st.integers(0, 90) | st.sampled_from([5_000, 100_000]),
)
def test_random_nested_json_and_toml(tmp_path: Path, reader: str, tree: Any, depth: int) -> None:
    text = toml_value(tree) if is_toml(reader) else json.dumps(tree)
    opener, closer = ("[", "]") if depth % 2 else ('{"data": ', "}")
    text = opener * depth + text + closer * depth
    text = f"x = {text}\n" if is_toml(reader) else text
    only_spanlab_errors(reader, write(tmp_path, reader, text.encode("utf-8", "surrogatepass")))


RAW_TOKENS = st.sampled_from(
    ["NaN", "-Infinity", "1e400", "9" * 5000, '"\\ud800"', '"\\u0000"', "[" * 5000, "nan",
     "inf", "-0", "1" * 30, "{", '"a":', "true", '"\\udfff\\ud800"']
)  # fmt: skip


@FUZZ
@given(reader=st.sampled_from(sorted(bases())), pick=st.integers(0, 10**6), token=RAW_TOKENS)
def test_a_valid_file_with_one_hostile_token(
    tmp_path: Path, reader: str, pick: int, token: str
) -> None:
    base = bases()[reader]
    text = toml_text(base) if is_toml(reader) else json.dumps(base)
    cuts = [i for i, c in enumerate(text) if c in ",:=[{"]
    at = cuts[pick % len(cuts)] + 1
    text = text[:at] + " " + token + text[at:]
    only_spanlab_errors(reader, write(tmp_path, reader, text.encode("utf-8", "surrogatepass")))


@FUZZ
@given(reader=st.sampled_from(sorted(bases())), pick=st.integers(0, 10**6), value=TREES)
def test_a_valid_file_with_one_hostile_value(
    tmp_path: Path, reader: str, pick: int, value: Any
) -> None:
    base = bases()[reader]
    all_paths = paths(base)
    tree = swapped(base, all_paths[pick % len(all_paths)], value)
    text = toml_text(tree) if is_toml(reader) else json.dumps(tree)
    only_spanlab_errors(reader, write(tmp_path, reader, text.encode("utf-8", "surrogatepass")))


@FUZZ
@given(
    reader=st.sampled_from(["chroma-csv", "queries", "label-studio-csv", "qrels"]),
    cells=st.lists(st.one_of(HOSTILE_TEXT, st.text(max_size=6), st.just('"[{"start":')),
                   max_size=9),
)  # fmt: skip
def test_random_csv(tmp_path: Path, reader: str, cells: list[str]) -> None:
    rows = [cells[i : i + 3] for i in range(0, len(cells), 3)]
    text = "question,references,corpus_id\n" + "\n".join(",".join(r) for r in rows)
    only_spanlab_errors(reader, write(tmp_path, reader, text.encode("utf-8", "surrogatepass")))


def test_the_bases_are_read_as_valid() -> None:
    # Otherwise every swap would die at the first check and the test above mean little.
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for reader, base in bases().items():
            text = toml_text(base) if is_toml(reader) else json.dumps(base)
            assert READERS[reader](write(Path(tmp), reader, text.encode())) is not None
