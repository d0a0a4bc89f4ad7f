"""Auto-merging (§24), step for step as LlamaIndex's AutoMergingRetriever does it.

The framework's loop, kept exactly (llama_index.core.retrievers.auto_merging_retriever):
repeat { fill in the one node missing between two list neighbours whose next and previous
links name it, at their mean score; then every parent with MORE than `ratio` of its
children in the list (counted with repeats) replaces them, at their mean score, appended
after the rest in the order the parents were first met } while anything changed; then a
stable sort by score, best first, and (BaseRetriever.retrieve) each node kept only where it
first appears. LlamaIndex's HierarchicalNodeParser links a leaf only to
the leaf before it (no next link), so only parents are ever filled in; `Tree` says which
links exist, so the rule is the framework's and the links are the data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evaluator.chunk import Chunk
from evaluator.retrieval.base import Ranked


@dataclass(frozen=True)
class Tree:
    """One candidate's parents over its retrieval units, and the links fill-in follows."""

    parent: Mapping[str, Chunk]
    """Retrieval unit id -> the parent that holds it."""
    children: Mapping[str, int]
    """Parent id -> how many retrieval units it holds."""
    next: Mapping[str, Chunk]
    """Unit id -> the unit after it, where the framework links one (parents, by document)."""
    prev: Mapping[str, str]
    """Unit id -> the id of the unit before it, where linked."""
    ratio: float
    """A parent replaces its children when more than this share of them is in the list."""


def auto_merge(ranked: Sequence[Ranked], tree: Tree) -> list[Ranked]:
    """What AutoMergingRetriever returns for these retrieved units, best first."""
    nodes = list(ranked)
    changed = True
    while changed:
        nodes, filled = _fill_in(nodes, tree)
        nodes, merged = _merge(nodes, tree)
        changed = filled or merged
    nodes.sort(key=lambda n: n.score, reverse=True)
    first: dict[str, Ranked] = {}
    for n in nodes:
        first.setdefault(n.chunk.id, n)
    return list(first.values())


def _fill_in(nodes: list[Ranked], tree: Tree) -> tuple[list[Ranked], bool]:
    out: list[Ranked] = []
    changed = False
    for i, node in enumerate(nodes):
        out.append(node)
        if i >= len(nodes) - 1:
            continue
        middle, after = tree.next.get(node.chunk.id), nodes[i + 1]
        if middle is not None and tree.prev.get(after.chunk.id) == middle.id:
            changed = True
            out.append(Ranked(middle, (node.score + after.score) / 2))
    return out, changed


def _merge(nodes: list[Ranked], tree: Tree) -> tuple[list[Ranked], bool]:
    parents: dict[str, Chunk] = {}
    held: dict[str, list[Ranked]] = {}
    for node in nodes:
        parent = tree.parent.get(node.chunk.id)
        if parent is None:
            continue
        parents.setdefault(parent.id, parent)
        held.setdefault(parent.id, []).append(node)
    gone: set[str] = set()
    added: list[Ranked] = []
    for pid, parent in parents.items():
        kids = held[pid]
        if len(kids) / (tree.children.get(pid) or 1) > tree.ratio:
            gone.update(k.chunk.id for k in kids)
            added.append(Ranked(parent, sum(k.score for k in kids) / len(kids)))
    return [n for n in nodes if n.chunk.id not in gone] + added, bool(gone)


def holder(merged: Sequence[Ranked], chunk: Chunk, tree: Tree) -> Chunk:
    """The unit of `merged` that sends `chunk`: itself, or the parent that replaced it."""
    if any(n.chunk.id == chunk.id for n in merged):
        return chunk
    parent = tree.parent.get(chunk.id)
    while parent is not None:
        if any(n.chunk.id == parent.id for n in merged):
            return parent
        parent = tree.parent.get(parent.id)
    return chunk
