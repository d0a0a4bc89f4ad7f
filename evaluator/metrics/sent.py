"""What is sent for a ranking (§18): the retriever ranks small units, the prompt gets big ones.

`Sending` maps each retrieval unit to the unit sent for it (its parent, or its window of
neighbours) and gives the two views every measure needs: per rank, the unit sent for that
rank's chunk once ranks 1..r are sent (`ranking`), and the units sent for the top k
(`sent`). Windows merge where they touch; a parent several children share is sent once.
The frameworks' own semantics (§24): windows sent each for its hit, repeats and all
(`repeat`), and auto-merging parents (`tree`, evaluator.metrics.automerge). Tokens,
matching, coverage and the budget are counted on what `sent` returns, repeats included.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from evaluator.chunk import Chunk, chunk_id
from evaluator.metrics.automerge import Tree, auto_merge, holder
from evaluator.retrieval.base import Ranked

WINDOW_FINGERPRINT = "spanlab-sent-window"
"""What a window's id hashes beside its range, whether one chunk's or merged."""


@dataclass(frozen=True)
class Sending:
    """One candidate's context units."""

    units: Mapping[str, Chunk]
    """Retrieval unit id -> the unit sent for it alone (its parent, or its own window)."""
    merge: bool
    """True for windows: units of one document that overlap or touch are sent as one."""
    corpus_hash: str = ""
    """For the ids of merged windows."""
    repeat: bool = False
    """Without merging: True sends each hit's unit however many hits share or overlap it
    (LlamaIndex's sentence window); False sends a shared parent once."""
    tree: Tree | None = None
    """Auto-merging (§24): children are sent themselves until enough of a parent's are."""

    def ranking(self, ranked: Sequence[Ranked]) -> list[Ranked]:
        """Per rank r, the unit that holds rank r's chunk when ranks 1..r are sent (scores
        kept). A span first matched at rank r in this list is first matched by what is
        sent for the top r; rank r > k is crowding, as for retrieval units."""
        if self.tree is not None:
            tree = self.tree
            return [Ranked(holder(auto_merge(ranked[: i + 1], tree), r.chunk, tree), r.score)
                    for i, r in enumerate(ranked)]  # fmt: skip
        if not self.merge:
            return [Ranked(self.unit(r.chunk), r.score) for r in ranked]
        merged: list[Chunk] = []
        out = []
        for r in ranked:
            merged, unit = self._add(merged, self.unit(r.chunk))
            out.append(Ranked(unit, r.score))
        return out

    def sent(self, ranked: Sequence[Ranked], k: int) -> tuple[Chunk, ...]:
        """The units sent for the top k of `ranked`, each once, in the order of the best
        rank each holds: what a prompt receives (with `repeat` or `tree`, in the
        framework's order, a repeated unit as often as it is sent)."""
        if self.tree is not None:
            return tuple(r.chunk for r in auto_merge(ranked[:k], self.tree))
        if self.repeat:
            return tuple(self.unit(r.chunk) for r in ranked[:k])
        if not self.merge:
            return tuple({u.id: u for u in (self.unit(r.chunk) for r in ranked[:k])}.values())
        merged: list[Chunk] = []
        for r in ranked[:k]:
            merged, _ = self._add(merged, self.unit(r.chunk))
        return tuple(merged)

    def prefixes(self, ranked: Sequence[Ranked]) -> Iterator[tuple[Chunk, ...]]:
        """`sent(ranked, n)` for n = 0, 1, … len(ranked): merged windows in one walk of the
        ranking (a budget tries every n; merging anew for each was most of the curve)."""
        yield ()
        if self.tree is not None or self.repeat or not self.merge:
            for n in range(1, len(ranked) + 1):
                yield self.sent(ranked, n)
            return
        merged: list[Chunk] = []
        for r in ranked:
            merged, _ = self._add(merged, self.unit(r.chunk))
            yield tuple(merged)

    def unit(self, chunk: Chunk) -> Chunk:
        return self.units.get(chunk.id, chunk)

    def sendable(self) -> list[Chunk]:
        """Every unit that can be sent for one retrieved chunk: the index the oracle and
        precision-Ω search (merged windows can only hold more; auto-merging: the
        children and their parents)."""
        parents = [] if self.tree is None else list(self.tree.parent.values())
        return list({u.id: u for u in [*self.units.values(), *parents]}.values())

    def _add(self, merged: list[Chunk], unit: Chunk) -> tuple[list[Chunk], Chunk]:
        """`merged` with `unit` joined to every unit of its document it overlaps or touches
        (the result keeps the place of the first), and the unit that now holds it."""
        touching = [m for m in merged if m.doc == unit.doc and m.start <= unit.end
                    and unit.start <= m.end]  # fmt: skip
        if not touching:
            return [*merged, unit], unit
        joined = self._join([*touching, unit])
        first = merged.index(touching[0])
        rest = [m for m in merged if m not in touching]
        return [*rest[:first], joined, *rest[first:]], joined

    def _join(self, units: Iterable[Chunk]) -> Chunk:
        ordered = sorted(units, key=lambda u: (u.start, -u.end))
        start, end = ordered[0].start, max(u.end for u in ordered)
        if start == ordered[0].start and end == ordered[0].end:
            return ordered[0]
        doc = ordered[0].doc
        uid = chunk_id(self.corpus_hash, doc, start, end, WINDOW_FINGERPRINT)
        return Chunk(uid, doc, start, end, ordered[0].prefix)
