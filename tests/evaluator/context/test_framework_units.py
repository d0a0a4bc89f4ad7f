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
from evaluator.pipeline.units import sending
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.items import ChunkLookup
from evaluator.retrieval.lexical import LexicalRetriever
from evaluator.retrieval.locate import locate, trimmed
from evaluator.retrieval.ranked import read_rankings
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
    from llama_index.core.node_parser import (
        HierarchicalNodeParser,
        SentenceSplitter,
        get_leaf_nodes,
    )

    tokens = encoding("tiktoken:cl100k_base").encode
    parsers: dict[str, Any] = {
        str(n): SentenceSplitter(chunk_size=n, chunk_overlap=0, tokenizer=tokens) for n in sizes
    }
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


@pytest.mark.parametrize(
    ("k", "ratio", "merging", "parents"), [(8, 0.5, 21, 30), (20, 0.1, 77, 1304)]
)
def test_auto_merging_sends_what_llama_index_returns_query_by_query(
    k: int, ratio: float, merging: int, parents: int
) -> None:
    """Every demo query ranked by the lexical scorer over 64-token leaves in 256-token
    parents; at k = 20 and ratio 0.1 parents merge and are filled in between merged ones."""
    pytest.importorskip("llama_index.core")
    from llama_index.core.retrievers import AutoMergingRetriever
    from llama_index.core.schema import NodeWithScore

    corpus = Corpus.read(DEMO / "corpus")
    context = ContextSpec(parent=sentence_splitter(256), merge_ratio=ratio)
    spec = replace(sentence_splitter(64), context=context)
    table = chunk_table(spec, corpus)
    units = sending(spec, table, corpus)
    assert units is not None and units.tree is not None
    leaves, places, storage = llama_tree(corpus, (256, 64))
    assert sorted(leaves) == sorted((c.doc, c.start, c.end) for c in table)
    merged, parents_sent = 0, 0
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
    assert (merged, parents_sent) == (merging, parents)  # the comparison exercised merging


def test_a_window_without_merging_sends_what_llama_index_sentence_window_sends(
    tmp_path: Path,
) -> None:
    """LlamaIndex's sentences as the chunk file, `context = { window = 3, merge = false }`:
    each hit's window is the text MetadataReplacementPostProcessor puts in its place (that
    text re-joins sentences with spaces, so it is located blind to whitespace)."""
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceWindowNodeParser

    corpus = Corpus.read(DEMO / "corpus")
    parser = SentenceWindowNodeParser.from_defaults(window_size=3)
    windows: dict[Place, str] = {}
    with (tmp_path / "sentences.jsonl").open("w", encoding="utf-8") as out:
        for doc in corpus.texts():
            nodes: list[Any] = parser.get_nodes_from_documents([Document(text=corpus.text(doc))])
            for node in nodes:
                start, end = int(node.start_char_idx), int(node.end_char_idx)
                windows[(doc, start, end)] = node.metadata["window"]
                out.write(json.dumps({"doc": doc, "start": start, "end": end}))
                out.write("\n")
    spec = SplitterSpec("chunks", 1, options={"path": str(tmp_path / "sentences.jsonl")})
    spec = replace(spec.validate("w"), context=ContextSpec(window=3, merge=False))
    table = chunk_table(spec, corpus)
    units = sending(spec, table, corpus)
    assert units is not None and units.repeat and len(table) == len(windows)
    texts = {d: corpus.text(d) for d in corpus.texts()}
    k, normalised, repeated = 5, 0, 0
    for ranked in LexicalRetriever(list(table), texts).search(queries(), k):
        expected = []
        for r in ranked:
            found = locate(texts[r.chunk.doc], windows[(r.chunk.doc, r.chunk.start, r.chunk.end)])
            assert found is not None
            normalised += found.normalised
            expected.append((r.chunk.doc, found.start, found.end))
        sent = units.sent(ranked, k)
        assert [(u.doc, *trimmed(texts[u.doc], u.start, u.end)) for u in sent] == expected
        repeated += len({u.id for u in sent}) < len(sent) or _overlap(sent)
    assert (normalised, repeated) == (405, 49)  # every join re-spaced; text sent twice
    imported_as_ranked(tmp_path, table, units.units, windows, texts)


def imported_as_ranked(tmp_path: Path, table: Any, sent: Any, windows: dict[Place, str],
                       texts: dict[str, str]) -> None:  # fmt: skip
    """LlamaIndex's rankings as a ranked file in its own words (each hit's window text):
    every item is located blind to whitespace and names the sentence it was sent for."""
    asked = queries()
    ranked = LexicalRetriever(list(table), texts).search(asked, 5)
    with (tmp_path / "llama.jsonl").open("w", encoding="utf-8") as out:
        for q, hits in zip(asked, ranked, strict=True):
            places = [(r.chunk.doc, r.chunk.start, r.chunk.end) for r in hits]
            items = [{"doc": p[0], "text": windows[p]} for p in places]
            out.write(json.dumps({"query": q.id, "ranked": items}) + "\n")
    lookup = ChunkLookup(list(table), texts, None, sent)
    found = read_rankings(str(tmp_path / "llama.jsonl"), lookup, asked, 50)
    assert {q: [r.chunk.id for r in hits] for q, hits in found.lists.items()} == {
        q.id: [r.chunk.id for r in hits] for q, hits in zip(asked, ranked, strict=True)
    }
    assert lookup.located == {"exact": 0, "normalised": 405}


def _overlap(units: Sequence[Chunk]) -> bool:
    return any(a.doc == b.doc and a.start < b.end and b.start < a.end
               for i, a in enumerate(units) for b in units[i + 1:])  # fmt: skip
