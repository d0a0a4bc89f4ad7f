"""Parents and their children (§18): retrieve the small chunk, send the parent that holds it.

As LangChain's parent-document retriever and LlamaIndex's hierarchical node parser do, the
parent splitter cuts each document and the candidate's own splitter cuts within each
parent, so children nest in parents by construction. A team's exported chunk file cannot
be cut again: its chunks are taken as given and each must lie inside one parent, or the
candidate is refused. Every child is checked against its parent either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evaluator.chunking.pieces import Piece
from evaluator.chunking.spec import SplitterSpec
from labeler.core.errors import ConfigError

Split = Callable[[SplitterSpec, str, str], list[Piece]]
"""`split_text(spec, text, doc)`."""


@dataclass(frozen=True)
class Family:
    """One document's parents and children (the retrieval units)."""

    parents: tuple[Piece, ...]
    """The parent splitter's pieces, in offset order."""
    children: tuple[Piece, ...]
    """The retrieval units by (start, end); they may overlap across overlapping parents."""
    parent_of: tuple[int, ...]
    """Per child, the index of the parent that holds it."""


def family_pieces(split: Split, spec: SplitterSpec, text: str, doc: str) -> Family:
    """Cut `text` into parents (`spec.context.parent`) and children (`spec` itself)."""
    assert spec.context is not None and spec.context.parent is not None
    parents = tuple(split(spec.context.parent, text, doc))
    child = spec.without_context()
    if child.exported:
        children = split(child, text, doc)
        family = Family(parents, tuple(children), tuple(_holder(parents, c) for c in children))
    else:
        family = _cut_within(split, child, parents, text, doc)
    check_family(doc, family)
    return family


def _holder(parents: Sequence[Piece], child: Piece) -> int:
    """The first parent that holds `child`; -1 when none does (check_family refuses it)."""
    return next((i for i, p in enumerate(parents) if inside(child, p)), -1)


def _cut_within(
    split: Split, child: SplitterSpec, parents: Sequence[Piece], text: str, doc: str
) -> Family:
    """Children cut in each parent's text and shifted to document offsets; a range two
    overlapping parents both cut is kept once, with the first parent."""
    found: dict[tuple[int, int], tuple[Piece, int]] = {}
    for i, parent in enumerate(parents):
        for p in split(child, text[parent.start : parent.end], doc):
            shifted = Piece(parent.start + p.start, parent.start + p.end, p.prefix)
            found.setdefault((shifted.start, shifted.end), (shifted, i))
    ordered = [found[key] for key in sorted(found)]
    return Family(tuple(parents), tuple(p for p, _ in ordered), tuple(i for _, i in ordered))


def inside(child: Piece, parent: Piece) -> bool:
    return parent.start <= child.start and child.end <= parent.end


def check_family(doc: str, family: Family) -> None:
    """ConfigError naming the first child that its parent does not hold."""
    for child, i in zip(family.children, family.parent_of, strict=True):
        if i < 0 or not inside(child, family.parents[i]):
            where = "no parent" if i < 0 else f"its parent ({family.parents[i].start}, " \
                f"{family.parents[i].end})"  # fmt: skip
            message = (
                f"document {doc!r}: chunk ({child.start}, {child.end}) lies inside {where}; "
                "every retrieved chunk must lie inside one parent"
            )
            raise ConfigError(message, key="context.parent", offset=child.start)
