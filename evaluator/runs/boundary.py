"""The boundary view: a query's evidence with two candidates' chunk cuts drawn over it.

One model, two renderers: `spanlab show` draws it as text with ruler lines
(`boundary_text`) and the triage screen styles the same segments, so the two always mark
the same boundaries, with the same glyphs.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from evaluator.chunk import Chunk
from evaluator.chunking import chunk_corpus
from evaluator.chunking.spec import SplitterSpec
from evaluator.runs.model import RunFile
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError

CONTEXT = 160
"""Characters of context shown around the evidence (then widened to a word boundary)."""
BASELINE_MARK = "▌"
"""Where a baseline chunk starts or ends, on a ruler (text) or before the character (TUI)."""
CANDIDATE_MARK = "┊"
"""Where a candidate chunk starts or ends."""
BOTH_MARK = "╫"
"""Where both cut, on a ruler line."""
PARENT_MARK = "┃"
"""Where a parent that a candidate sends (§18) starts or ends, on a row under the ruler."""
CUT_MARK = {(True, True): BOTH_MARK, (True, False): BASELINE_MARK, (False, True): CANDIDATE_MARK}
"""How a cut is drawn on a ruler line: baseline, candidate, or both."""


@dataclass(frozen=True)
class Segment:
    start: int
    """Offset where the segment starts."""
    end: int
    """Offset where it ends."""
    evidence: bool
    """Inside an evidence span."""
    cut_baseline: bool
    """A baseline chunk starts or ends at `start`."""
    cut_candidate: bool
    """A candidate chunk starts or ends at `start`."""


@dataclass(frozen=True)
class DocView:
    doc: str
    """Document id."""
    start: int
    """Window start."""
    end: int
    """Window end."""
    segments: tuple[Segment, ...]
    """The window split at every evidence edge and every cut."""
    baseline_cuts: tuple[int, ...]
    """Offsets in the window where a baseline chunk starts or ends."""
    candidate_cuts: tuple[int, ...]
    """Offsets in the window where a candidate chunk starts or ends."""
    parent_edges: tuple[int, ...] = ()
    """Offsets in the window where a parent that either side sends starts or ends (§18)."""

    def mark_at(self, offset: int) -> str:
        """The ruler glyph for a cut at `offset`; empty where neither side cuts."""
        key = (offset in self.baseline_cuts, offset in self.candidate_cuts)
        return CUT_MARK.get(key, "")


def cuts(chunks: Sequence[Chunk], doc: str, start: int, end: int) -> set[int]:
    out: set[int] = set()
    for c in chunks:
        if c.doc == doc and c.end >= start and c.start <= end:
            out.update(x for x in (c.start, c.end) if start <= x <= end)
    return out


def doc_view(
    doc: str,
    text: str,
    evidence: Sequence[tuple[int, int]],
    baseline: Sequence[Chunk],
    candidate: Sequence[Chunk],
    *,
    context: int = CONTEXT,
    parents: Sequence[tuple[int, int]] = (),
) -> DocView:
    first, last = min(s for s, _ in evidence), max(e for _, e in evidence)
    lo = word_start(text, max(0, first - context), first)
    hi = word_end(text, min(len(text), last + context), last)
    base_cuts = cuts(baseline, doc, lo, hi)
    cand_cuts = cuts(candidate, doc, lo, hi)
    edges = {lo, hi} | base_cuts | cand_cuts
    for s, e in evidence:
        edges.update(x for x in (s, e) if lo <= x <= hi)
    points = sorted(edges)
    segments = []
    for a, b in itertools.pairwise(points):
        inside = any(s <= a and b <= e for s, e in evidence)
        segments.append(Segment(a, b, inside, a in base_cuts, a in cand_cuts))
    rims = sorted({x for p in parents for x in p if lo <= x <= hi})
    return DocView(doc, lo, hi, tuple(segments), tuple(sorted(base_cuts)),
                   tuple(sorted(cand_cuts)), tuple(rims))  # fmt: skip


def word_start(text: str, at: int, limit: int) -> int:
    """`at`, moved forward to the start of a word or line (never past `limit`)."""
    while 0 < at < limit and not text[at - 1].isspace():
        at += 1
    return at


def word_end(text: str, at: int, limit: int) -> int:
    """`at`, moved back to the end of a word or line (never before `limit`)."""
    while limit < at < len(text) and not text[at].isspace():
        at -= 1
    return at


def candidate_spec(run: RunFile, name: str, *, check: bool = True) -> SplitterSpec:
    """A run's candidate as a SplitterSpec, rebuilt from run.json; with `check`, refuse when
    this spanlab would cut differently than the run did (`show` and triage share this)."""
    entry = run.candidate(name)
    spec = entry.spec
    if check and spec.fingerprint() != entry.splitter_fingerprint:
        raise SpanlabError(
            f"candidate {name!r} cuts differently in this spanlab than in run {run.id}: "
            "the boundaries drawn would not be the ones that run ranked",
            hint="run `spanlab eval` again",
        )
    return spec


def chunks_for_doc(spec: SplitterSpec, corpus: Corpus, doc: str) -> list[Chunk]:
    """Re-cut one document the way the candidate did (the split is deterministic). A chunk
    file (`splitter = "chunks"`) names every document, so it is read whole and filtered."""
    if spec.splitter == "chunks":
        return [c for c in chunk_corpus(spec, corpus) if c.doc == doc]
    one = Corpus({doc: corpus.documents[doc]})
    return chunk_corpus(spec, one)
