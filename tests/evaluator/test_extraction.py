"""Extractors as candidates (§22), below the command line: each alternative's text of one
PDF made here, each span's fate and score in it, the table read from a candidates file, a
source an alternative cannot read named and left out, and the record read back."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from evaluator import candidates
from evaluator.candidates import parse
from evaluator.extraction.compare import compare_extractions, record, unreachable
from evaluator.extraction.config import Alternative
from evaluator.extraction.evidence import Fate, find, interleaved, table_header
from evaluator.extraction.variant import variant
from evaluator.metrics.compare import Status
from evaluator.pipeline import progress
from evaluator.pipeline.options import RunOptions
from evaluator.runs.extraction_record import ExtractionRecord
from evaluator.runs.model_json import Reader, RunFileError
from labeler.core.corpus.extract.base import SourceError
from labeler.core.corpus.extract.choices import CHOICES, choose
from labeler.core.corpus.extract.pdf import SETTINGS, Rules
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError
from labeler.core.progress import Advance
from labeler.core.values import Query, Span
from labeler.core.values import Status as Labelled
from tests.core.sources.makers import compared_pdf

ROW = "| Gold | 90 | 20 |"
REFUNDS = (
    "Refunds are paid within fourteen\ndays of the receipt of the payment by the team in charge."
)


def text_by(extractor: str, **settings: str) -> str:
    chosen = choose(extractor, settings, file="c.toml", key="x")
    return chosen.extract("plans.pdf", compared_pdf(), "plans.pdf").text


@pytest.fixture(scope="module")
def project() -> str:
    return text_by("pdf:pypdfium2")


def span_of(text: str, quote: str) -> Span:
    start = text.index(quote)
    return Span.from_text(text, "plans.pdf", start, start + len(quote))


def test_the_project_rules_are_bound_under_the_settings_they_always_had() -> None:
    assert Rules().settings() == SETTINGS
    assert dict(Rules.of({"tables": "off"}).settings())["tables"] == "off"


@pytest.mark.parametrize(
    ("extractor", "settings", "quote", "fate", "score", "found"),
    [
        ("pdf:pypdfium2", {}, ROW, Fate.KEPT, 1.0, True),
        ("pdf:pypdfium2", {"headers": "keep"}, ROW, Fate.ROW_WITHOUT_HEADER, 0.8913, True),
        ("pdf:pypdfium2", {"tables": "off"}, ROW, Fate.ROW_WITHOUT_HEADER, 0.5954, False),
        ("pdf:pypdfium2-plain", {}, ROW, Fate.ROW_WITHOUT_HEADER, 0.6021, False),
        ("pdf:pypdfium2", {"columns": "off"}, ROW, Fate.KEPT, 1.0, True),
        ("pdf:pypdfium2", {"columns": "off"}, REFUNDS, Fate.INTERLEAVED, 0.0, False),
        ("pdf:pypdfium2-plain", {}, REFUNDS, Fate.INTERLEAVED, 0.5612, False),
        ("pdf:pypdfium2", {"hyphens": "keep"}, REFUNDS, Fate.HYPHEN_SPLIT, 0.9882, True),
        ("pdf:pypdfium2", {"headers": "keep"}, "Plans renew every month", Fate.MOVED, 0.9049,
         True),
    ],
)  # fmt: skip
def test_each_span_fate_and_score_in_each_alternative(
    project: str,
    extractor: str,
    settings: dict[str, str],
    quote: str,
    fate: Fate,
    score: float,
    found: bool,
) -> None:
    got = find(span_of(project, quote), project, text_by(extractor, **settings), 0.7)
    assert (got.fate, got.confidence, got.place is not None) == (fate, score, found)


def test_the_torn_row_is_where_the_footer_parts_it_from_its_header(project: str) -> None:
    other = text_by("pdf:pypdfium2", headers="keep")
    got = find(span_of(project, ROW), project, other, 0.7)
    assert got.place == (359, 377) and other[359:377] == ROW
    assert other[333:359] == "| Team | 45 | 9 |\nPage 2\n\n"
    assert table_header(project, project.index(ROW)) == ["Plan", "Days", "Fee"]
    assert table_header(project, project.index("| Plan")) is None  # the header itself


def test_a_source_the_alternative_cannot_read_is_named_and_left_out(tmp_path: Path) -> None:
    (tmp_path / "plans.pdf").write_bytes(compared_pdf())
    (tmp_path / "notes.md").write_text("Plain notes.\n", encoding="utf-8")
    corpus = Corpus.read(tmp_path)

    def refuse(raw: bytes, file: str, settings: object) -> object:
        raise SourceError("the PDF is encrypted (it needs a password)", file=file)

    broken = replace(choose("pdf:pypdfium2", {}, file="c", key="x"),
                     choice=replace(CHOICES["pdf:pypdfium2"], read=refuse))  # type: ignore[arg-type]  # fmt: skip
    got = variant(corpus, Alternative("broken", broken))
    assert got.failed == (("plans.pdf", "the PDF is encrypted (it needs a password)"),)
    assert sorted(got.corpus.documents) == ["notes.md"] and got.extracted == ()
    fate = find(span_of(corpus.text("plans.pdf"), ROW), corpus.text("plans.pdf"), None, 0.7)
    assert (fate.fate, fate.confidence, fate.place) == (Fate.LOST, 0.0, None)


def test_interleaved_needs_most_words_in_order_and_other_text_between() -> None:
    assert interleaved("alpha beta gamma delta", "alpha X beta Y gamma Z delta")
    assert not interleaved("alpha beta gamma delta", "alpha beta gamma delta")
    assert not interleaved("alpha beta gamma delta", "delta gamma beta alpha")


def test_a_lost_span_is_evidence_past_the_text_end() -> None:
    span = Span.from_text("abcdef", "a.pdf", 1, 4)
    moved = unreachable(span, "xy")
    assert (moved.start, moved.end, moved.quote) == (3, 6, "bcd")


CANDIDATES = """[settings]
baseline = "md"
k = 1
retriever = "lexical"
[[candidate]]
name = "md"
splitter = "markdown"
size = 200
"""


@pytest.mark.parametrize(
    ("table", "key", "message"),
    [
        ("[extraction]\nconfidence = 0\n[[extraction.alternative]]\nname = \"a\"\n"
         "extractor = \"pdf:pypdfium2\"", "extraction.confidence", "must lie in (0, 1], got 0"),
        ("[extraction]\n", "extraction.alternative", "no [[extraction.alternative]] tables"),
        ("[[extraction.alternative]]\nname = \"a\"", "extraction.alternative[0].extractor",
         "missing key 'extractor'"),
        ("[[extraction.alternative]]\nname = \"a\"\nextractor = \"html:stdlib\"\n"
         "settings = { columns = \"off\" }", "extraction.alternative[0].settings.columns",
         "html:stdlib takes no setting 'columns' (known: none)"),
        ("[[extraction.alternative]]\nname = \"a\"\nextractor = \"pdf:pypdfium2\"\nsize = 3",
         "extraction.alternative[0].size", "unknown key 'size'"),
        ("[[extraction.alternative]]\nname = \"a/b\"\nextractor = \"pdf:pypdfium2\"",
         "extraction.alternative[0].name", "alternative name"),
    ],
)  # fmt: skip
def test_a_bad_extraction_table_names_its_key(table: str, key: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse(tomllib.loads(CANDIDATES + table), file="c.toml")
    assert caught.value.key == key and message in caught.value.message


def test_retrieval_lost_under_a_torn_row_and_the_record_reads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "plans.pdf").write_bytes(compared_pdf())
    (tmp_path / "faq.md").write_text("# Gold\n\nGold medals go to the best stands of the fair.\n",
                                     encoding="utf-8")  # fmt: skip
    corpus = Corpus.read(tmp_path)
    text = corpus.text("plans.pdf")
    queries = [Query("q-0001", "What fee does the Gold plan charge?", status=Labelled.LABELLED,
                     evidence=(span_of(text, ROW),))]  # fmt: skip
    extra = ('[extraction]\n[[extraction.alternative]]\nname = "kept"\nextractor = '
             '"pdf:pypdfium2"\nsettings = { headers = "keep" }\n')  # fmt: skip
    cfile = parse(tomllib.loads(CANDIDATES + extra), file="c.toml")
    assert cfile.extraction is not None
    bars: dict[str, list[int]] = {}

    @contextmanager
    def task(description: str, total: int, **options: object) -> Iterator[Advance]:
        bars[description] = [total, 0]
        yield lambda n: bars[description].__setitem__(1, bars[description][1] + n)

    monkeypatch.setattr(progress, "task", task)
    found = compare_extractions(
        cfile, cfile.extraction, corpus, queries, RunOptions(progress=False)
    )
    assert bars == {"extractions: 2 runs": [2, 2]}  # after eval's bar: the baseline, then kept
    (only,) = found
    assert only.comparison is not None
    assert [(c.query, c.cause) for c in only.comparison.with_status(Status.LOST)] == [
        ("q-0001", "crowded")
    ]
    saved = record(found, cfile.extraction, "md")
    back = ExtractionRecord.from_json(Reader(saved.to_json(), "run.json"))
    assert back == saved
    assert back.alternatives[0].counts["row-without-header"] == 1


@pytest.mark.parametrize(
    ("found", "said"),
    [([5], "must be [start, end] with start < end"), ([9, 3], "start < end"),
     (["a", 3], "an integer")],
)  # fmt: skip
def test_a_hand_edited_place_is_refused_naming_its_key(found: object, said: str) -> None:
    span = {"query": "q-0001", "index": 0, "doc": "a.pdf", "start": 0, "end": 4,
            "fate": "kept", "confidence": 1.0, "found": found}  # fmt: skip
    alternative: dict[str, object] = {"extractor": "pdf:pypdfium2", "settings": {},
                                      "extracted": ["a.pdf"], "failed": [], "spans": [span],
                                      "comparison": None}  # fmt: skip
    data = {"confidence": 0.7, "chunked_by": "md", "alternatives": {"a": alternative}}
    with pytest.raises(RunFileError) as caught:
        ExtractionRecord.from_json(Reader(data, "run.json"))
    assert said in caught.value.message and "found" in (caught.value.key or "")


def test_a_group_writable_file_may_name_extractors(tmp_path: Path) -> None:
    """Extractors come from a fixed table (no code, no path): `[extraction]` steers nothing,
    so a candidates file another account can write may hold it (§21)."""
    path = tmp_path / "c.toml"
    path.write_text(CANDIDATES + '[[extraction.alternative]]\nname = "plain"\n'
                    'extractor = "pdf:pypdfium2-plain"\n', encoding="utf-8")  # fmt: skip
    path.chmod(0o664)
    read = candidates.read(path)
    assert read.extraction is not None
    assert [a.describe() for a in read.extraction.alternatives] == ["pdf:pypdfium2-plain"]


def test_an_alternative_that_read_no_document_says_so_not_every_span_kept() -> None:
    from evaluator.runs.extraction_record import AlternativeRecord
    from evaluator.runs.extraction_text import details, extraction_md

    alt = AlternativeRecord("html-only", "html:stdlib", {}, (), (), (), None)
    said = ["- read no document: the corpus has no file this extractor reads, nothing compared"]
    assert list(details(alt)) == said
    assert said[0] in extraction_md(ExtractionRecord(0.7, "md", (alt,)))
    assert "every span kept" not in "\n".join(extraction_md(ExtractionRecord(0.7, "md", (alt,))))
