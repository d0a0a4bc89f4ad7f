"""Parents cut by library splitters (§18) give the children the libraries' own retrievers
index: LlamaIndex's HierarchicalNodeParser at two levels and LangChain's parent-document
set-up (a parent splitter, then the child splitter over each parent), placed by offsets."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evaluator.chunking.adapters.base import encoding
from evaluator.chunking.spec import ContextSpec, SplitterSpec
from evaluator.chunking.split import parent_pieces

DOC = Path(__file__).resolve().parents[3] / "data" / "demo" / "corpus" / "policies" / "shipping.md"


def family(kind: str, size: str, child: int, parent: int) -> list[tuple[int, int]]:
    def spec(n: int) -> SplitterSpec:
        return SplitterSpec(kind, 0, options={size: n, "chunk_overlap": 0}).validate("c")

    found = parent_pieces(replace(spec(child), context=ContextSpec(parent=spec(parent))),
                          DOC.read_text("utf-8"), "shipping.md")  # fmt: skip
    return [(c.start, c.end) for c in found.children]


def test_llama_index_hierarchical_node_parser_at_two_levels_gives_the_same_leaves() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from llama_index.core.node_parser import (
        HierarchicalNodeParser,
        NodeParser,
        SentenceSplitter,
        get_leaf_nodes,
    )
    from llama_index.core.schema import MetadataMode

    tokens = encoding("tiktoken:cl100k_base").encode
    parsers: dict[str, NodeParser] = {
        "p": SentenceSplitter(chunk_size=512, chunk_overlap=0, tokenizer=tokens),
        "c": SentenceSplitter(chunk_size=128, chunk_overlap=0, tokenizer=tokens),
    }
    parser = HierarchicalNodeParser.from_defaults(node_parser_ids=["p", "c"],
                                                  node_parser_map=parsers)  # fmt: skip
    nodes = parser.get_nodes_from_documents([Document(text=DOC.read_text("utf-8"))])
    by_id = {n.node_id: n for n in nodes}

    def start(node: Any) -> int:  # a child's start_char_idx counts from its parent's text
        above = node.parent_node
        return int(node.start_char_idx) + (0 if above is None else start(by_id[above.node_id]))

    leaves = sorted((start(n), start(n) + len(n.get_content(metadata_mode=MetadataMode.NONE)))
                    for n in get_leaf_nodes(nodes))  # fmt: skip
    ours = family("llama-index:SentenceSplitter", "chunk_size", 128, 512)
    assert len(ours) == 8
    assert ours == leaves


def test_langchain_parent_splitter_then_child_splitter_gives_the_same_children() -> None:
    pytest.importorskip("langchain_text_splitters")
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    def splitter(n: int) -> Any:
        return RecursiveCharacterTextSplitter(chunk_size=n, chunk_overlap=0, add_start_index=True)

    text = DOC.read_text("utf-8")
    children = []
    for parent in splitter(2000).create_documents([text]):
        at = parent.metadata["start_index"]
        for child in splitter(400).create_documents([parent.page_content]):
            start = at + child.metadata["start_index"]
            children.append((start, start + len(child.page_content)))
    ours = family("langchain:RecursiveCharacterTextSplitter", "chunk_size", 400, 2000)
    assert len(ours) == 11
    assert ours == sorted(children)
