"""Each candidate's context units (§18), built from its chunks once they are cut.

A window is a run of neighbouring chunks of one document; a parent is re-cut from the
document by the candidate's parent splitter (deterministic, like every cut), and the
children in the table are matched to the parents the family holds, in the same order.
Auto-merging (§24) keeps each child as its own unit and records the tree: which parent
holds it, how many children each parent has, and the links LlamaIndex gives its parents
(each to the one before and after it in its document; leaves get no next link there).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from evaluator.chunk import Chunk, chunk_id
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.spec import SplitterSpec
from evaluator.chunking.split import parent_pieces
from evaluator.metrics.automerge import Tree
from evaluator.metrics.sent import WINDOW_FINGERPRINT, Sending
from labeler.core.corpus.folder import Corpus


def sending(spec: SplitterSpec, chunks: Sequence[Chunk], corpus: Corpus) -> Sending | None:
    """What is sent for each of a candidate's chunks; None when the chunk itself is."""
    if spec.context is None:
        return None
    table = chunks if isinstance(chunks, ChunkTable) else None
    assert table is not None, "context units are built from a chunk table"
    if spec.context.parent is not None and spec.context.merge_ratio is not None:
        units = {table[i].id: table[i] for i in range(len(table))}
        tree = _tree(spec, table, corpus, spec.context.merge_ratio)
        return Sending(units, merge=False, corpus_hash=corpus.hash, tree=tree)
    if spec.context.parent is not None:
        return Sending(_parents(spec, table, corpus), merge=False, corpus_hash=corpus.hash)
    merge = spec.context.merge
    return Sending(_windows(spec.context.window, table), merge=merge, corpus_hash=corpus.hash,
                   repeat=not merge)  # fmt: skip


def _windows(n: int, table: ChunkTable) -> dict[str, Chunk]:
    units: dict[str, Chunk] = {}
    for doc in table.docs:
        r = table.doc_range(doc)
        for i in r:
            lo, hi = max(r.start, i - n), min(r.stop - 1, i + n)
            start, end = int(table.starts[lo]), int(table.ends[hi])
            uid = chunk_id(table.corpus_hash, doc, start, end, WINDOW_FINGERPRINT)
            units[table[i].id] = Chunk(uid, doc, start, end, table.prefixes.get(lo, ""))
    return units


def _parents(spec: SplitterSpec, table: ChunkTable, corpus: Corpus) -> dict[str, Chunk]:
    assert spec.context is not None and spec.context.parent is not None
    fingerprint = spec.context.parent.fingerprint()
    units: dict[str, Chunk] = {}
    for doc in table.docs:
        family = parent_pieces(spec, corpus.text(doc), doc)
        r = table.doc_range(doc)
        for i, held_by in zip(r, family.parent_of, strict=True):
            p = family.parents[held_by]
            uid = chunk_id(table.corpus_hash, doc, p.start, p.end, fingerprint)
            units[table[i].id] = Chunk(uid, doc, p.start, p.end, p.prefix)
    return units


def _tree(spec: SplitterSpec, table: ChunkTable, corpus: Corpus, ratio: float) -> Tree:
    """The parent of every child, each parent's count of children, and the parents' links."""
    parent_of = _parents(spec, table, corpus)
    children: dict[str, int] = {}
    for p in parent_of.values():
        children[p.id] = children.get(p.id, 0) + 1
    nxt: dict[str, Chunk] = {}
    prev: dict[str, str] = {}
    for doc in table.docs:
        r = table.doc_range(doc)
        held = list({parent_of[table[i].id].id: parent_of[table[i].id] for i in r}.values())
        for a, b in pairwise(held):
            nxt[a.id], prev[b.id] = b, a.id
    return Tree(parent_of, children, nxt, prev, ratio)
