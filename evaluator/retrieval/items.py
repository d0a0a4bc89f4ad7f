"""A ranked item from outside — a shadow-traffic log line, a search endpoint's answer —
turned into one of the candidate's chunks, or refused naming where it came from (§19).

An item is `{"doc", "start", "end"}`, `{"doc", "text"}` (located exactly, once) or
`{"id"}` (a chunk id of the candidate, as `spanlab trec` writes them, or the team's own
id from the candidate's chunk file, which wins where the two coincide). Text not found
exactly is located blind to whitespace (evaluator.retrieval.locate, §24) and then names the
chunk that lies there once the whitespace at its ends is set aside; how many items were
located each way is counted (`located`). Text that lies where the candidate SENDS one unit
(a sentence window, §24) names the chunk that unit is sent for, when only one is. Every item must be
a chunk the candidate cut: offsets inside the document, text found once, and those
offsets one of its chunks (else the measures would judge a chunk the index never held).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.chunk import Chunk
from evaluator.retrieval.base import Ranked
from evaluator.retrieval.locate import Ambiguous, Located, locate, trimmed
from labeler.core.corpus.canonical import canonicalize
from labeler.core.errors import ConfigError


@dataclass(frozen=True)
class Where:
    """Where an item came from, as errors name it."""

    file: str
    """The file (or URL) it came from."""
    line: int | None = None
    """Its line, in a file."""

    def refuse(self, message: str, key: str | None = None) -> ConfigError:
        return ConfigError(message, file=self.file, line=self.line, key=key)


class ChunkLookup:
    """The candidate's chunks by id and by place."""

    def __init__(self, chunks: Sequence[Chunk], texts: Mapping[str, str],
                 named: Mapping[str, tuple[str, int, int]] | None = None,
                 sent: Mapping[str, Chunk] | None = None) -> None:  # fmt: skip
        self.texts = texts
        """Document id -> canonical text."""
        self.by_place = {(c.doc, c.start, c.end): c for c in chunks}
        """(doc, start, end) -> chunk."""
        teams = {ident: self.by_place.get(place) for ident, place in (named or {}).items()}
        self.by_id = {c.id: c for c in chunks} | {i: c for i, c in teams.items() if c}
        """Chunk id (spanlab's, or the chunk file's own) -> chunk."""
        self.located = {"exact": 0, "normalised": 0}
        """Items given as text, by how they were located."""
        self._chunks = chunks
        self._trimmed: dict[tuple[str, int, int], Chunk] | None = None
        self._sent = sent or {}
        self._by_sent: dict[tuple[str, int, int], Chunk | None] | None = None

    def item(self, obj: Any, where: Where) -> Chunk:
        """The chunk an item names, or a ConfigError at `where`."""
        if not isinstance(obj, dict):
            raise where.refuse("a ranked item must be an object")
        if "id" in obj:
            return self._by_id(obj["id"], where)
        doc = obj.get("doc")
        if not isinstance(doc, str) or doc not in self.texts:
            shown = repr(doc)[:80] if isinstance(doc, str) else "missing"
            raise where.refuse(f"doc {shown} is not a document of the corpus", "doc")
        start, end = self._offsets(obj, doc, where)
        found = self.by_place.get((doc, start, end))
        if found is None and "text" in obj:
            found = self._by_trimmed().get((doc, start, end)) or self._sent_for(doc, start, end)
        if found is None:
            message = f"{doc}[{start}:{end}] is not a chunk of this candidate"
            raise where.refuse(message, "start")
        return found

    def _by_id(self, value: Any, where: Where) -> Chunk:
        found = self.by_id.get(value) if isinstance(value, str) else None
        if found is None:
            raise where.refuse(f"id {str(value)[:40]!r} is not a chunk of this candidate", "id")
        return found

    def _offsets(self, obj: Mapping[str, Any], doc: str, where: Where) -> tuple[int, int]:
        text = self.texts[doc]
        start, end = obj.get("start"), obj.get("end")
        if isinstance(start, int) and isinstance(end, int) and _whole(start) and _whole(end):
            if not 0 <= start < end <= len(text):
                message = f"offsets {start}:{end} lie outside document {doc!r} ({len(text)})"
                raise where.refuse(message, "start")
            return start, end
        quote = obj.get("text")
        if not isinstance(quote, str) or start is not None or end is not None:
            raise where.refuse("an item needs 'start' and 'end' (whole numbers), or 'text'")
        found = _located(text, canonicalize(quote), doc, where)
        self.located["normalised" if found.normalised else "exact"] += 1
        return found.start, found.end

    def _sent_for(self, doc: str, start: int, end: int) -> Chunk | None:
        """The one chunk whose sent unit lies at this place (its ends' whitespace aside);
        None when none is, or when two are (the place does not say which was retrieved)."""
        if self._by_sent is None:
            self._by_sent = {}
            by_id = {c.id: c for c in self._chunks}
            for cid, unit in self._sent.items():
                if cid not in by_id:
                    continue
                for key in {
                    (unit.doc, unit.start, unit.end),
                    (unit.doc, *trimmed(self.texts[unit.doc], unit.start, unit.end)),
                }:
                    seen = self._by_sent.get(key, by_id[cid])  # fmt: skip
                    self._by_sent[key] = by_id[cid] if seen is by_id[cid] else None
        return self._by_sent.get((doc, start, end))

    def _by_trimmed(self) -> dict[tuple[str, int, int], Chunk]:
        """Chunks by their place without the whitespace at their ends (built on first use)."""
        if self._trimmed is None:
            self._trimmed = {}
            for c in self._chunks:
                self._trimmed.setdefault((c.doc, *trimmed(self.texts[c.doc], c.start, c.end)), c)
        return self._trimmed


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _located(text: str, needle: str, doc: str, where: Where) -> Located:
    try:
        found = locate(text, needle)
    except Ambiguous as exc:
        how = " with whitespace ignored" if exc.normalised else ""
        message = (f"the item's text occurs more than once{how} (at {exc.at[0]} and "
                   f"{exc.at[1]}) in {doc!r}")  # fmt: skip
        raise where.refuse(message + "; give 'start' and 'end'", "text") from None
    if found is None:
        message = f"the item's text is not in document {doc!r}, even with whitespace ignored"
        raise where.refuse(message, "text")
    return found


ONCE = "a ranked list holds each chunk once"
"""Why a repeated chunk is refused: it would count as two retrieved chunks."""


def repeated(ranked: Sequence[Ranked]) -> tuple[int, int] | None:
    """(first item, repeating item), 1-based, of the first chunk a ranked list holds twice:
    a list from outside that repeats a chunk is refused (it would count one chunk as two)."""
    seen: dict[str, int] = {}
    for n, item in enumerate(ranked, 1):
        if (first := seen.setdefault(item.chunk.id, n)) != n:
            return first, n
    return None
