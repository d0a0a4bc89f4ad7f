"""One answer for triage (§23): a query asked through one candidate, read from the run's
generation.jsonl, with its numbered sources' text from the corpus and each citation's
standing (cited, and holding labelled evidence or not).

Plain values, no Textual: tests check exactly what the answer screen draws. The record's
strings were stored after the display rule; the sources' text is the corpus's own and is
masked here (one placeholder per unsafe code point), so evidence offsets keep their place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evaluator.generation.run_file import AnswerRecord, SentSource
from labeler.core.corpus.folder import Corpus
from labeler.core.display import masked
from labeler.tui.triage.detail import corpus_note
from labeler.tui.triage.model import RunView

NOT_SENT = "no answer recorded: this candidate did not send the query (send = {send})"
"""Why a query has no record for a candidate: its retrieval did not qualify."""
CHECK_WORDS: dict[str, tuple[str, str]] = {
    "citation_precision": ("citation precision", "ratio"),
    "citation_recall": ("citation recall", "ratio"),
    "unsupported": ("unsupported", "count"),
    "completeness": ("completeness", "ratio"),
    "abstention": ("abstention", "right"),
    "repeated_sentences": ("repeated", "count"),
}
"""Each check's name on the screen, and how its value is written."""


@dataclass(frozen=True)
class SourceView:
    """One numbered source as the answer screen draws it."""

    number: int
    """1-based, as the answer cites it."""
    doc: str
    start: int
    end: int
    text: str | None
    """The corpus's text of the range, masked; None when the corpus is not the run's."""
    cited: bool
    """The answer cites `[number]`."""
    evidence: tuple[int, ...]
    """1-based numbers of the evidence spans the source holds (the run's match rule)."""
    marks: tuple[tuple[int, int], ...]
    """Labelled evidence inside the source, as offsets into `text`."""

    @property
    def standing(self) -> str:
        """What the citation check makes of this source, in words."""
        held = "holds " + ", ".join(f"e{n}" for n in self.evidence) if self.evidence else ""
        if self.cited:
            return f"cited, {held}" if held else "cited, holds no evidence"
        return f"not cited, {held}" if held else "not cited"


@dataclass(frozen=True)
class AnswerView:
    """Everything the answer screen shows for one query and candidate."""

    query: str
    candidate: str
    text: str | None
    """The query's text when the run or the label store has it."""
    record: AnswerRecord | None
    """None when the candidate did not send the query."""
    sources: tuple[SourceView, ...]
    note: str | None = None
    """Why there is no answer, or why the sources' text is not shown (another corpus)."""
    abstain: bool = False
    """An abstention query: no evidence exists, the right answer abstains."""


def answer_view(run: RunView, answers: Mapping[str, Mapping[str, AnswerRecord]], qid: str,
                candidate: str, corpus: Corpus,
                texts: Mapping[str, str] | None = None) -> AnswerView:  # fmt: skip
    """The view of `qid`'s answer through `candidate`."""
    entry = run.file.queries.get(qid)
    text = (entry.text if entry is not None else None) or (texts or {}).get(qid)
    record = answers.get(qid, {}).get(candidate)
    abstain = entry is not None and entry.abstain
    if record is None:
        summary = run.file.generation
        send = summary.asking.send if summary is not None else "?"
        return AnswerView(qid, candidate, text, None, (), NOT_SENT.format(send=send), abstain)
    note = corpus_note(run, corpus, [s.doc for s in record.sources])
    spans = [] if entry is None else [(e.doc, e.start, e.end) for e in entry.evidence]
    cited = set(record.cited)
    sources = tuple(
        _source(s, None if note else corpus.text(s.doc), s.number in cited, spans)
        for s in record.sources
    )
    return AnswerView(qid, candidate, text, record, sources, note, abstain)


def _source(s: SentSource, doc_text: str | None, cited: bool,
            spans: Sequence[tuple[str, int, int]]) -> SourceView:  # fmt: skip
    marks = tuple(
        (max(a, s.start) - s.start, min(b, s.end) - s.start)
        for doc, a, b in spans
        if doc == s.doc and min(b, s.end) > max(a, s.start)
    )  # fmt: skip
    text = None if doc_text is None else masked(doc_text[s.start : s.end])
    evidence = tuple(i + 1 for i in s.evidence)
    return SourceView(s.number, s.doc, s.start, s.end, text, cited, evidence, marks)


def value_text(name: str, value: float | None) -> str:
    """A check's value as the screen writes it: `0.50`, `2`, `right`/`wrong`, `n/a`."""
    if value is None:
        return "n/a"
    kind = CHECK_WORDS.get(name, (name, "ratio"))[1]
    if kind == "count":
        return f"{value:g}"
    if kind == "right":
        return "right" if value >= 1.0 else "wrong"
    return f"{value:.2f}"
