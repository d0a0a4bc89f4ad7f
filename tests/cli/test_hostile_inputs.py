"""Hostile inputs through the command line (§13), as a table like a fuzzing corpus.

Each case writes one bad file, runs the command that reads it, and expects exit code 2,
a message naming the place, no traceback, and a store unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from labeler.core.store import Store
from tests.conftest import table_dump, write_corpus

TEXT = "Refunds take 30 days. Cafe\u0301 au lait.\n"
DEEP = 100_000


def label_set(**query: Any) -> dict[str, Any]:
    """A spanlab label set of one query, with `query`'s keys laid over a valid one."""
    q = {"id": "q-0001", "text": "How long?", "abstain": False, "boundary": "other",
         "slices": [], "status": "labelled", "notes": "",
         "evidence": [{"doc": "a.md", "start": 13, "end": 20, "quote": "30 days",
                       "prefix": "Refunds take ", "suffix": ". Café au lait.\n"}]}  # fmt: skip
    q.update(query)
    from labeler.core.corpus.folder import Corpus  # the hash of this very corpus

    corpus = Corpus.from_texts({"a.md": TEXT})
    return {"format": "spanlab.labelset/1",
            "corpus": {"hash": corpus.hash, "normalization": "nfc-lf/1",
                       "documents": corpus.doc_hashes},
            "queries": [q]}  # fmt: skip


def js(data: Any) -> bytes:
    return json.dumps(data).encode()


def squad(context: str = "Paris is big.", question: str = "Which city?") -> bytes:
    qa = {"id": "s1", "question": question, "answers": [{"text": "Paris", "answer_start": 0}]}
    return js({"data": [{"title": "Geo", "paragraphs": [{"context": context, "qas": [qa]}]}]})


def studio(*tasks: dict[str, Any]) -> bytes:
    return js(list(tasks))


def task(**data: Any) -> dict[str, Any]:
    return {"data": {"text": TEXT, "doc": "a.md", "question": "How long?", **data}}


CANDS = """[settings]
baseline = "a"
{extra}
[[candidate]]
name = "a"
splitter = "recursive"
size = 50
"""
IMPORT = ("labels", "import", "in.file")
GATE = ("gate", "in.file", "--labels", "labels.json")
STATUS = ("corpus", "status")

# (case id, command, file it reads, its bytes, words the message must hold)
CASES: list[tuple[str, tuple[str, ...], str, bytes, str]] = [
    ("json nested 100k", (*IMPORT, "-f", "spanlab"), "in.file", b"[" * DEEP, "deeper than 64"),
    ("json nested objects", (*IMPORT, "-f", "spanlab"), "in.file", b'{"a":' * 70 + b"1" + b"}" * 70,
     "deeper than 64"),
    ("not utf-8", (*IMPORT, "-f", "spanlab"), "in.file", b'{"a": "\xff"}', "not valid UTF-8"),
    ("truncated", (*IMPORT, "-f", "spanlab"), "in.file", js(label_set())[:-9], "not valid JSON"),
    ("empty file", (*IMPORT, "-f", "spanlab"), "in.file", b"", "not valid JSON"),
    ("surrogate in text", (*IMPORT, "-f", "spanlab"), "in.file",
     js(label_set(text="a\ud800")), "key queries[0].text: text holds a lone surrogate"),
    ("surrogate in notes", (*IMPORT, "-f", "spanlab"), "in.file",
     js(label_set(notes="\udfff")), "key queries[0].notes"),
    ("surrogate in slices", (*IMPORT, "-f", "spanlab"), "in.file",
     js(label_set(slices=["x\ud83d"])), "key queries[0].slices[0]"),
    ("surrogate in a key", (*IMPORT, "-f", "spanlab"), "in.file",
     js(label_set(**{"\ud800": 1})), "lone surrogate"),
    ("NUL in text", (*IMPORT, "-f", "spanlab"), "in.file", js(label_set(text="a\x00b")),
     "key queries[0].text: text holds a NUL"),
    ("notes a number", (*IMPORT, "-f", "spanlab"), "in.file", js(label_set(notes=12345)),
     "key queries[0].notes: 'notes' must be str, got int"),
    ("10 MB text", (*IMPORT, "-f", "spanlab"), "in.file", js(label_set(text="x" * 10_000_001)),
     "over the limit of 10,000"),
    ("NaN offset", (*IMPORT, "-f", "spanlab"), "in.file",
     js(label_set()).replace(b'"start": 13', b'"start": NaN'), "NaN is not a number"),
    ("1e400 offset", (*IMPORT, "-f", "spanlab"), "in.file",
     js(label_set()).replace(b'"start": 13', b'"start": 1e400'), "not a finite number"),
    ("huge int offset", (*IMPORT, "-f", "spanlab"), "in.file",
     js(label_set()).replace(b'"start": 13', b'"start": ' + b"9" * 5000), "is beyond"),
    ("csv unterminated quote", (*IMPORT, "-f", "chroma-csv"), "in.file",
     b'question,references,corpus_id\nWhat is,"[],a\n', "a quoted field is never closed"),
    ("csv NUL", (*IMPORT, "-f", "chroma-csv"), "in.file",
     b"question,references,corpus_id\nWh\x00at,[],a\n", "in.file:2, key question"),
    ("csv deep references", (*IMPORT, "-f", "chroma-csv"), "in.file",
     b'question,references,corpus_id\nWhat,"' + b"[" * 5000 + b'",a\n', "deeper than 64"),
    ("queries NUL", (*IMPORT, "-f", "queries"), "in.file", b"fine\nba\x00d\n", "NUL"),
    ("queries 10 MB line", (*IMPORT, "-f", "queries"), "in.file", b"x" * 10_000_001,
     "over the limit of 10,000"),
    ("squad surrogate context", (*IMPORT, "-f", "squad"), "in.file", squad("Paris \ud800"),
     "key data[0].paragraphs[0].context"),
    ("squad NUL question", (*IMPORT, "-f", "squad"), "in.file", squad(question="a\x00"),
     "key data[0].paragraphs[0].qas[0].question"),
    ("squad deep", (*IMPORT, "-f", "squad"), "in.file", b'{"data":' + b"[" * 5000,
     "deeper than 64"),
    ("studio surrogate question", (*IMPORT, "-f", "label-studio"), "in.file",
     studio(task(question="\ud800?")), "key [0].data.question"),
    ("studio conflicting fields", (*IMPORT, "-f", "label-studio"), "in.file",
     studio(task(query_id="q-0009", boundary="control"), task(query_id="q-0009")),
     "key [1].data.boundary: the query's task at [0] gives boundary another value"),
    ("guessed deep json", IMPORT, "in.file", b"[" * DEEP, "deeper than 64"),
    ("toml nested", STATUS, "spanlab.toml", b"corpus = " + b"[" * 5000, "deeper than 64"),
    ("toml rot13", STATUS, "spanlab.toml", b'corpus = "corpus"\nencoding = "rot13"\n',
     "key encoding: 'rot13' is not a text encoding"),
    ("toml unknown codec", STATUS, "spanlab.toml", b'corpus = "corpus"\nencoding = "nope"\n',
     "unknown encoding"),
    ("toml NUL", STATUS, "spanlab.toml", b'corpus = "cor\\u0000pus"\n', "key corpus"),
    ("toml 5000-digit int", STATUS, "spanlab.toml", b"x = " + b"9" * 5000 + b"\n",
     "out of bounds"),
    ("toml chroma_timeout nan", STATUS, "spanlab.toml", b"chroma_timeout = nan\n",
     "key chroma_timeout"),
    ("toml chroma_timeout 0", STATUS, "spanlab.toml", b"chroma_timeout = 0\n",
     "must lie between 0.1 and 600, got 0"),
    ("toml chroma_timeout text", STATUS, "spanlab.toml", b'chroma_timeout = "8"\n',
     "'chroma_timeout' must be a number of seconds"),
    ("toml trim_spans text", STATUS, "spanlab.toml", b'trim_spans = "no"\n',
     "key trim_spans: 'trim_spans' must be true or false"),
    ("toml trim_spans number", STATUS, "spanlab.toml", b"trim_spans = 0\n",
     "spanlab.toml, key trim_spans"),
    ("toml trim_spans table", STATUS, "spanlab.toml", b"[trim_spans]\nx = 1\n",
     "key trim_spans"),
    ("toml not utf-8", STATUS, "spanlab.toml", b'corpus = "\xff"\n', "not valid UTF-8"),
    ("toml 2 MB", STATUS, "spanlab.toml", b"# " + b"x" * 2_000_000, "over the limit"),
    ("init rot13", ("init", "corpus", "--encoding", "rot13"), "unused", b"",
     "'rot13' is not a text encoding"),
    ("ipv6 without ]", ("eval", "--preset", "chroma-report", "--labels", "labels.json",
     "--chroma-url", "http://[::1:8000"), "unused", b"", "Invalid IPv6 URL"),
    ("port out of range", ("eval", "--preset", "chroma-report", "--labels", "labels.json",
     "--chroma-url", "http://localhost:99999"), "unused", b"", "not a Chroma URL"),
    ("resamples 1e20", GATE, "in.file", CANDS.format(extra="resamples = 1e20").encode(),
     "'resamples' has the wrong type (float)"),
    ("resamples 10**20", GATE, "in.file",
     CANDS.format(extra="resamples = 100000000000000000000").encode(), "is beyond"),
    ("resamples 1e9", GATE, "in.file", CANDS.format(extra="resamples = 1000000000").encode(),
     "resamples must be at most 1,000,000, got 1,000,000,000"),
    ("seed -1", GATE, "in.file", CANDS.format(extra="seed = -1").encode(),
     "seed must lie between 0 and 4294967295"),
    ("k huge", GATE, "in.file", CANDS.format(extra="k = 1000000").encode(),
     "k must be at most 10,000"),
    ("candidates deep", GATE, "in.file", b"x = " + b"[" * 5000, "deeper than 64"),
    ("max_lost nan", GATE, "in.file", (CANDS + "[gates]\nmax_lost = nan\n").format(extra="")
     .encode(), "key gates.max_lost: max_lost is nan"),
    ("max_lost inf", GATE, "in.file", (CANDS + "[gates]\nmax_lost = -inf\n").format(extra="")
     .encode(), "not a finite number"),
    ("candidates NUL", GATE, "in.file", CANDS.format(extra='embedding = "a\\u0000"').encode(),
     "settings.embedding"),
]  # fmt: skip


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": TEXT})
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    (tmp_path / "labels.json").write_bytes(js(label_set()))
    return tmp_path


def dump(root: Path) -> Callable[[], Any]:
    def state() -> Any:
        store = Store.open(root / ".spanlab/labels.db", create=False)
        try:
            return table_dump(store), sorted(p.name for p in (root / "corpus").rglob("*"))
        finally:
            store.close()

    return state


@pytest.mark.parametrize(
    ("case", "argv", "name", "content", "words"), CASES, ids=[c[0] for c in CASES]
)
def test_a_hostile_input_is_refused_cleanly(
    project: Path, case: str, argv: tuple[str, ...], name: str, content: bytes, words: str
) -> None:
    state = dump(project)
    before = state()
    (project / name).write_bytes(content)
    done = CliRunner().invoke(app, list(argv))
    assert done.exit_code == 2, (done.output, done.exception)
    assert "Traceback" not in done.output
    assert words in done.stderr, done.stderr
    if name == "spanlab.toml":
        (project / name).unlink()
    assert state() == before
