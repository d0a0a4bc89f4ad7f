"""Transitions to label for a project: the documents' transitions no query covers, ranked by
the cuts of the project's candidates when it has a candidates file (issue 33).

The cut is the run's own (`run.cut`, as `spanlab plan` cuts), so a transition listed as cut
is one `plan` and `eval` would see cut. A candidates file that cannot be read or cut does
not hide the transitions: they come in document order, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from evaluator import candidates as cands
from evaluator.chunk_table import ChunkTable
from evaluator.pipeline.run import cut
from evaluator.plan.transitions import Transition, transitions_to_label
from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown
from labeler.core.errors import SpanlabError


@dataclass(frozen=True)
class ToLabel:
    """The transitions to label and how they were ranked."""

    transitions: tuple[Transition, ...]
    """Most cut first, then in document order."""
    candidates: tuple[str, ...]
    """The candidates whose cuts ranked them (empty: document order)."""
    note: str
    """How they were ranked, in a reader's words."""


def cut_offsets(tables: Mapping[str, ChunkTable]) -> dict[str, dict[str, list[int]]]:
    """Candidate → document id → its sorted chunk starts and ends."""
    out: dict[str, dict[str, list[int]]] = {}
    for name, table in tables.items():
        by_doc: dict[str, set[int]] = {}
        for c in table:
            by_doc.setdefault(c.doc, set()).update((c.start, c.end))
        out[name] = {doc: sorted(offsets) for doc, offsets in by_doc.items()}
    return out


def project_transitions(
    corpus: Corpus,
    spans: Mapping[str, Sequence[tuple[int, int]]],
    candidates_file: Path | None,
    stop: Callable[[], bool] = lambda: False,
) -> ToLabel | None:
    """The corpus's transitions no span in `spans` (document id → ranges) overlaps, ranked
    by the cuts of `candidates_file` when it exists; None once `stop()` says so (it is asked
    between candidates, so a closed screen does not wait for every cut)."""
    texts = corpus.texts()
    if candidates_file is None or not candidates_file.is_file():
        found = transitions_to_label(texts, spans)
        return ToLabel(tuple(found), (), "no candidates file: in document order")
    try:
        cfile = cands.read(candidates_file)
        tables = cut_each(cfile, corpus, stop)
    except SpanlabError as exc:
        found = transitions_to_label(texts, spans)
        why = shown(exc.message, lines=False)
        return ToLabel(tuple(found), (), f"{candidates_file.name}: {why}; in document order")
    if tables is None:
        return None
    found = transitions_to_label(texts, spans, cut_offsets(tables))
    names = tuple(c.name for c in cfile.candidates)
    note = f"most cut first ({len(names)} candidates in {candidates_file.name})"
    return ToLabel(tuple(found), names, note)


def cut_each(
    cfile: cands.CandidatesFile, corpus: Corpus, stop: Callable[[], bool]
) -> dict[str, ChunkTable] | None:
    """Each candidate cut and checked as a run cuts it, one at a time; None when stopped."""
    tables: dict[str, ChunkTable] = {}
    for cand in cfile.candidates:
        if stop():
            return None
        tables.update(cut(replace(cfile, candidates=(cand,)), corpus)[0])
    return tables
