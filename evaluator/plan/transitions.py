"""Transitions to label: passages that straddle a document's structural transitions (heading
→ paragraph, list intro → item, table header → row, code explanation → snippet) where no
query has evidence yet, ranked by how many candidates cut inside them.

Chunkers fail where structure changes, so those are the places a label set must cover (seed
000). The blocks are the markdown splitter's own (`md_blocks`), so a heading here is a heading
there; sentences are the app's (`labeler.core.text.sentences`), so a passage snaps as `s` does.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from evaluator.chunking.md_blocks import Block, parse_blocks
from labeler.core.text.sentences import sentences
from labeler.core.values import Boundary

REACH = 600
"""Most code points a passage takes from either side of its transition."""
_ITEM = re.compile(r"[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
"""A list item's first line."""
_FENCE_END = re.compile(r" {0,3}(?:`{3,}|~{3,})[ \t]*(?:\n|\Z)")
"""A closing fence line."""


@dataclass(frozen=True)
class Transition:
    """A passage across one structural transition, with the candidates that cut inside it."""

    doc: str
    """Document id."""
    kind: Boundary
    """The boundary pattern it exercises (a query written on it gets this pattern)."""
    start: int
    """First code point of the passage (the end of the part before the transition)."""
    end: int
    """One past the passage's last code point (the start of the part after)."""
    at: int
    """Where the part after the transition starts."""
    cuts: tuple[str, ...] = ()
    """Candidates with a chunk boundary strictly inside the passage, in candidates order."""


def find_transitions(doc: str, text: str) -> list[Transition]:
    """Every structural transition of one document, in document order."""
    blocks = parse_blocks(text)
    found = [t for a, b in pairwise(blocks) if (t := _between(doc, text, a, b)) is not None]
    found += [t for b in blocks if b.kind == "table" and (t := _table(doc, text, b)) is not None]
    found += _list_intros(doc, text, blocks)
    return sorted(found, key=lambda t: (t.start, t.end))


def _first_sentence(text: str, start: int, end: int) -> tuple[int, int] | None:
    found = sentences(text, start, min(end, start + REACH))
    return found[0] if found else None


def _last_sentence(text: str, start: int, end: int) -> tuple[int, int] | None:
    found = sentences(text, max(start, end - REACH), end)
    return found[-1] if found else None


def _between(doc: str, text: str, a: Block, b: Block) -> Transition | None:
    """Heading → paragraph, or explanation → code, across two neighbouring blocks."""
    if a.kind == "heading" and b.kind == "text":
        kind, before = Boundary.HEADING_PARAGRAPH, _first_sentence(text, a.start, a.head_end)
        after = _first_sentence(text, b.start, b.end)
    elif a.kind == "text" and b.kind == "fence":
        kind, before = Boundary.CODE_EXPLANATION_SNIPPET, _last_sentence(text, a.start, a.end)
        after = _code(text, b)
    else:
        return None
    if before is None or after is None:
        return None
    return Transition(doc, kind, before[0], after[1], after[0])


def _code(text: str, fence: Block) -> tuple[int, int] | None:
    """The fence from its opening line to its last code line within reach (not the closing)."""
    code = [s for s in fence.lines if s < fence.start + REACH and not _FENCE_END.match(text, s)]
    if not code:
        return None
    end = text.find("\n", code[-1], fence.end)
    return fence.start, min(fence.end if end < 0 else end, code[-1] + REACH)


def _table(doc: str, text: str, table: Block) -> Transition | None:
    """Table header → its first row (the delimiter row between them)."""
    if not table.lines:
        return None
    first = table.lines[0]
    end = text.find("\n", first, table.end)
    end = min(table.end if end < 0 else end, first + REACH)
    head = text[table.start : table.head_end]
    start = table.start + len(head) - len(head.lstrip())
    return Transition(doc, Boundary.TABLE_HEADER_ROW, start, end, first)


def _list_intros(doc: str, text: str, blocks: Sequence[Block]) -> list[Transition]:
    """A text line ending in a colon, then (past blank lines) a list item's first line."""
    out: list[Transition] = []
    texts = [b for b in blocks if b.kind == "text"]
    starts = [b.start for b in texts]
    for block in texts:
        for colon in _colon_line_ends(text, block):
            item = _item_after(text, colon + 1)
            intro = _last_sentence(text, block.start, colon + 1)
            if item is not None and intro is not None and _in_text(texts, starts, item[0]):
                out.append(Transition(doc, Boundary.LIST_INTRO_ITEM, intro[0], item[1], item[0]))
    return out


def _colon_line_ends(text: str, block: Block) -> Iterator[int]:
    """Offsets of the colons that end a line of the block (its last line included)."""
    for m in re.finditer(r":[ \t]*(?=\n|\Z)", text[block.start : block.end]):
        yield block.start + m.start()


def _item_after(text: str, pos: int) -> tuple[int, int] | None:
    """The first list item line after `pos` (past its newline and blank lines)."""
    while pos < len(text) and text[pos] in " \t\n":
        pos += 1
    line_start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    line_end = len(text) if line_end < 0 else line_end
    if not _ITEM.match(text, line_start, line_end):
        return None
    found = _first_sentence(text, line_start, line_end)
    return found


def _in_text(texts: Sequence[Block], starts: Sequence[int], offset: int) -> bool:
    """Whether `offset` is in one of the text blocks (`starts`: theirs, in order)."""
    i = bisect.bisect_right(starts, offset) - 1
    return i >= 0 and offset < texts[i].end


def unlabelled(
    found: Iterable[Transition], spans: Mapping[str, Sequence[tuple[int, int]]]
) -> list[Transition]:
    """The transitions no span overlaps; `spans` is document id → (start, end) of every span
    of every query."""
    return [t for t in found if not any(s < t.end and t.start < e for s, e in spans.get(t.doc, ()))]


def ranked(
    found: Iterable[Transition], cuts: Mapping[str, Mapping[str, Sequence[int]]]
) -> list[Transition]:
    """The transitions with the candidates that cut inside each, most cut first, then in
    document order; `cuts` is candidate → document id → sorted chunk boundary offsets."""
    out = [replace(t, cuts=_cutting(t, cuts)) for t in found]
    return sorted(out, key=lambda t: (-len(t.cuts), t.doc, t.start))


def _cutting(t: Transition, cuts: Mapping[str, Mapping[str, Sequence[int]]]) -> tuple[str, ...]:
    names = []
    for name, by_doc in cuts.items():
        offsets = by_doc.get(t.doc, ())
        i = bisect.bisect_right(offsets, t.start)
        if i < len(offsets) and offsets[i] < t.end:
            names.append(name)
    return tuple(names)


def transitions_to_label(
    texts: Mapping[str, str],
    spans: Mapping[str, Sequence[tuple[int, int]]],
    cuts: Mapping[str, Mapping[str, Sequence[int]]] | None = None,
) -> list[Transition]:
    """Every document's transitions no query covers yet, ranked (§11, issue 33)."""
    found = [t for doc, text in texts.items() for t in find_transitions(doc, text)]
    return ranked(unlabelled(found, spans), cuts or {})
