"""The frameworks' own units (§24), side by side with LlamaIndex on the demo: for the same
hits at the same scores, spanlab's auto-merging sends what AutoMergingRetriever returns and
its non-merging window what the sentence window's MetadataReplacementPostProcessor sends,
query by query, in the same order."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evaluator.chunk import Chunk
from evaluator.chunking import chunk_table
from evaluator.chunking.adapters.base import encoding
from evaluator.chunking.spec import ContextSpec, SplitterSpec
from evaluator.metrics.automerge import Tree, auto_merge
from evaluator.pipeline.units import sending
from evaluator.retrieval.base import QueryInput, Ranked
from evaluator.retrieval.lexical import LexicalRetriever
from labeler.core.corpus.folder import Corpus

DEMO = Path(__file__).resolve().parents[3] / "data" / "demo"
Place = tuple[str, int, int]


def queries() -> list[QueryInput]:
    found = json.loads((DEMO / "labels.json").read_text("utf-8"))["queries"]
    return [QueryInput(q["id"], q["text"]) for q in found]


def sentence_splitter(size: int) -> SplitterSpec:
    options = {"chunk_size": size, "chunk_overlap": 0}
    return SplitterSpec("llama-index:SentenceSplitter", 0, options=options).validate("c")


def llama_tree(
    corpus: Corpus, sizes: tuple[int, int]
) -> tuple[dict[Place, Any], dict[str, Place], Any]:
    """LlamaIndex's own hierarchy of the demo: leaves by place, every node's place by its
    id, and its docstore."""
    from llama_index.core import Document, StorageContext
    from llama_index.core.node_parser import HierarchicalNodeParser, SentenceSplitter
    from llama_index.core.node_parser import get_leaf_nodes

    tokens = encoding("tiktoken:cl100k_base").encode
    parsers: dict[str, Any] = {str(n): SentenceSplitter(chunk_size=n, chunk_overlap=0,
                                                        tokenizer=tokens) for n in sizes}  # fmt: skip
    parser = HierarchicalNodeParser.from_defaults(node_parser_ids=[str(n) for n in sizes],
                                                  node_parser_map=parsers)  # fmt: skip
    storage = StorageContext.from_defaults()
    leaves: dict[Place, Any] = {}
    places: dict[str, Place] = {}
    for doc in corpus.texts():
        nodes = parser.get_nodes_from_documents([Document(text=corpus.text(doc))])
        storage.docstore.add_documents(nodes)
        places.update({n.node_id: place(doc, n, nodes) for n in nodes})
        leaves.update({places[n.node_id]: n for n in get_leaf_nodes(nodes)})
    return leaves, places, storage


def place(doc: str, node: Any, nodes: Sequence[Any]) -> Place:
    """A node's place in its document (a child's start counts from its parent's)."""
    by_id = {n.node_id: n for n in nodes}

    def start(n: Any) -> int:
        above = n.parent_node
        return int(n.start_char_idx) + (0 if above is None else start(by_id[above.node_id]))

    return doc, start(node), start(node) + len(node.get_content(metadata_mode="none"))


class Fixed:
    """A vector retriever stand-in that returns the hits it is given."""

    def __init__(self, hits: list[Any]) -> None:
        self.hits = hits

    def retrieve(self, _query: Any) -> list[Any]:
        return list(self.hits)


@pytest.mark.parametrize("ratio", [0.5, 0.25])
def test_auto_merging_sends_what_llama_index_returns_query_by_query(ratio: float) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.retrievers import AutoMergingRetriever
    from llama_index.core.schema import NodeWithScore

    corpus = Corpus.read(DEMO / "corpus")
    spec = replace(sentence_splitter(64),
                   context=ContextSpec(parent=sentence_splitter(256), merge_ratio=ratio))  # fmt: skip
    table = chunk_table(spec, corpus)
    units = sending(spec, table, corpus)
    assert units is not None and units.tree is not None
    leaves, places, storage = llama_tree(corpus, (256, 64))
    assert sorted(leaves) == sorted((c.doc, c.start, c.end) for c in table)
    k, merged, parents_sent = 8, 0, 0
    texts = {d: corpus.text(d) for d in corpus.texts()}
    for ranked in LexicalRetriever(list(table), texts).search(queries(), k):
        hits = [NodeWithScore(node=leaves[(r.chunk.doc, r.chunk.start, r.chunk.end)],
                              score=r.score) for r in ranked]  # fmt: skip
        theirs = AutoMergingRetriever(Fixed(hits), storage, simple_ratio_thresh=ratio)  # type: ignore[arg-type]
        expected = [places[n.node.node_id] for n in theirs.retrieve("q")]
        ours = [(u.doc, u.start, u.end) for u in units.sent(ranked, k)]
        assert ours == expected
        merged += len(ours) < k
        parents_sent += sum(u.id in units.tree.children for u in units.sent(ranked, k))
    assert merged > 10 and parents_sent > 10  # the comparison exercised merging

