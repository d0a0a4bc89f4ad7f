"""run.json's `extraction` section (§22): extractors compared, as the run holds them.

The one owner of the section's format: the pipeline builds these values, `to_json` writes
them, `from_json` reads them back with the run's own reader (every key checked, every id as
a run allows it). Offsets, fates, scores and gained/lost queries only; no source text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.extraction.evidence import Fate
from evaluator.metrics.compare import Comparison
from evaluator.runs.model_json import Reader
from evaluator.runs.model_queries import read_comparison
from labeler.core.names import name_problem
from labeler.core.values import valid_query_id

FATES = tuple(str(f) for f in Fate)
"""Every fate a span may meet, best first."""


@dataclass(frozen=True)
class SpanRecord:
    """One span in one alternative's text."""

    query: str
    """Query id."""
    index: int
    """Its place among the query's evidence (0-based)."""
    doc: str
    """Its document."""
    start: int
    """Start in the project's text."""
    end: int
    """End in the project's text."""
    fate: str
    """One of FATES."""
    confidence: float
    """Best re-anchoring score, 0 to 1."""
    found: tuple[int, int] | None
    """Start and end in the alternative's text; None: below the threshold (lost to retrieval)."""

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "index": self.index, "doc": self.doc, "start": self.start,
                "end": self.end, "fate": self.fate, "confidence": self.confidence,
                "found": None if self.found is None else list(self.found)}  # fmt: skip

    @classmethod
    def from_json(cls, r: Reader) -> SpanRecord:
        fate = r.at("fate").text()
        if fate not in FATES:
            r.at("fate").fail(f"{fate[:40]!r} is not one of: {', '.join(FATES)}")
        found = r.at("found")
        place = found.nullable(lambda f: tuple(x.count() for x in f.at_most(2, "a place")))
        if place is not None and (len(place) != 2 or place[0] >= place[1]):
            found.fail("must be [start, end] with start < end")
        query = r.at("query").text()
        if not valid_query_id(query):
            r.at("query").fail(f"invalid query id {query[:40]!r}")
        return cls(query, r.at("index").count(), r.at("doc").doc(),
                   r.at("start").count(), r.at("end").count(), fate,
                   r.at("confidence").number(0.0, 1.0),
                   None if place is None else (place[0], place[1]))  # fmt: skip


@dataclass(frozen=True)
class AlternativeRecord:
    """One alternative extraction against the project's."""

    name: str
    """As the candidates file names it."""
    extractor: str
    """The extractor's name."""
    settings: Mapping[str, str]
    """Its settings."""
    extracted: tuple[str, ...]
    """Documents it read."""
    failed: tuple[tuple[str, str], ...]
    """(document, why) for each it could not read: its spans are lost."""
    spans: tuple[SpanRecord, ...]
    """Every span in a document it reads."""
    comparison: Comparison | None
    """Through the baseline candidate, against the project's extraction."""

    @property
    def counts(self) -> dict[str, int]:
        """Spans per fate, every fate named (kept, moved, changed, row-without-header,
        hyphen-split, interleaved, lost)."""
        seen = Counter(s.fate for s in self.spans)
        return {f: seen[f] for f in FATES}

    @property
    def lost_to_retrieval(self) -> int:
        """Spans below the threshold: evidence retrieval cannot find in this text."""
        return sum(s.found is None for s in self.spans)

    def to_json(self) -> dict[str, Any]:
        return {
            "extractor": self.extractor, "settings": dict(self.settings),
            "extracted": list(self.extracted),
            "failed": [{"doc": d, "why": w} for d, w in self.failed],
            "counts": self.counts, "lost_to_retrieval": self.lost_to_retrieval,
            "spans": [s.to_json() for s in self.spans],
            "comparison": None if self.comparison is None else self.comparison.to_json(),
        }  # fmt: skip

    @classmethod
    def from_json(cls, name: str, r: Reader) -> AlternativeRecord:
        """One alternative; its name as a candidates file allows it (it reaches terminals)."""
        if (problem := name_problem(name)) is not None:
            r.fail(f"alternative name {name[:40]!r} {problem}")
        return cls(
            name, r.at("extractor").text(),
            {k: v.text() for k, v in r.at("settings").items()},
            tuple(x.doc() for x in r.at("extracted").array()),
            tuple((f.at("doc").doc(), f.at("why").text()) for f in r.at("failed").array()),
            tuple(SpanRecord.from_json(s) for s in r.at("spans").array()),
            r.at("comparison").nullable(read_comparison),
        )  # fmt: skip


@dataclass(frozen=True)
class ExtractionRecord:
    """Every alternative extraction of the run."""

    confidence: float
    """The threshold a span's score had to reach to count as found."""
    chunked_by: str
    """The baseline candidate every text was cut and searched by."""
    alternatives: tuple[AlternativeRecord, ...]
    """In the candidates file's order."""

    def to_json(self) -> dict[str, Any]:
        return {"confidence": self.confidence, "chunked_by": self.chunked_by,
                "alternatives": {a.name: a.to_json() for a in self.alternatives}}  # fmt: skip

    @classmethod
    def from_json(cls, r: Reader) -> ExtractionRecord:
        return cls(r.at("confidence").number(0.0, 1.0), r.at("chunked_by").text(),
                   tuple(AlternativeRecord.from_json(n, a)
                         for n, a in r.at("alternatives").items()))  # fmt: skip
