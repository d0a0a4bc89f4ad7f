"""A cross-encoder file run in process (`rerank = { model_path = … }`, §19): a tiny ONNX
model this test builds (its logit is the sum of the text's token ids, so every score is
worked out by hand) and a word-level tokenizer.json, through onnxruntime and tokenizers;
files that are missing, links, FIFOs or not ONNX are refused naming the key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator.candidates import read
from evaluator.chunk import Chunk
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.cross_encoder import CrossEncoder
from evaluator.retrieval.lexical import LexicalRetriever
from evaluator.retrieval.rerank import cached_scorer
from evaluator.retrieval.stages import treated
from labeler.core.errors import ConfigError

VOCAB = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "refund": 10, "fee": 30, "box": 20, "days": 5}


def build_model(path: Path) -> None:
    """logits[n, 0] = sum over the second segment's tokens (type 1, unmasked) of their ids."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    names = ("input_ids", "attention_mask", "token_type_ids")
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["n", "l"]) for n in names]
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 1])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    nodes = [
        helper.make_node("Mul", ["input_ids", "token_type_ids"], ["typed"]),
        helper.make_node("Mul", ["typed", "attention_mask"], ["kept"]),
        helper.make_node("Cast", ["kept"], ["real"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["real", "axes"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(nodes, "sum-of-ids", inputs, [out], initializer=[axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))


def build_tokenizer(path: Path) -> None:
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace
    from tokenizers.processors import TemplateProcessing

    tokenizer = Tokenizer(WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    tokenizer.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 1), ("[SEP]", 2)],
    )  # fmt: skip
    tokenizer.save(str(path))


@pytest.fixture
def model(tmp_path: Path) -> Path:
    build_model(tmp_path / "model.onnx")
    build_tokenizer(tmp_path / "tokenizer.json")
    return tmp_path / "model.onnx"


def test_scores_are_the_model_s_own_logits(model: Path) -> None:
    encoder = CrossEncoder(str(model), str(model.parent / "tokenizer.json"), 512)
    # text tokens (type 1) and the closing [SEP] (2): refund box 10 + 20 + 2, fee 30 + 2,
    # an unknown word 0 + 2; the query's own tokens (type 0) count for nothing
    scores = encoder.score_pairs([("refund fee", "refund box"), ("refund", "fee"), ("x", "zz")])
    assert scores == [32.0, 32.0, 2.0]
    short = CrossEncoder(str(model), str(model.parent / "tokenizer.json"), 8)
    # 8 tokens at most with [CLS] and two [SEP], cut longest first: the text loses "fee"
    # (4 words against 3), then the query a word: the text keeps refund × 3, 30 + 2
    assert short.score_pairs([("box box box", "refund refund refund fee")]) == [32.0]
    assert encoder.fingerprint.startswith("cross-encoder model.onnx=sha256:")


def test_a_candidate_reranks_with_the_file_through_the_score_cache(
    model: Path, tmp_path: Path
) -> None:
    path = tmp_path / "candidates.toml"
    path.write_text(CANDIDATES.replace("RERANK", 'rerank = { model_path = "model.onnx" }'))
    treatment = read(path).candidate("r").treatment
    rerank = treatment.rerank
    assert rerank is not None and rerank.model_path == str(model)
    assert rerank.tokenizer == str(model.parent / "tokenizer.json")
    texts = {"a.md": "days refund. fee box.", "b.md": "refund days"}
    chunks = [Chunk("a1", "a.md", 0, 12), Chunk("a2", "a.md", 13, 21), Chunk("b1", "b.md", 0, 11)]
    inner = LexicalRetriever(chunks, texts)
    cache = tmp_path / "cache.sqlite"
    retriever = treated(inner, treatment, texts, None, cached_scorer(rerank, cache))
    ranked = retriever.search([QueryInput("q", "refund days")], 3)[0]
    # lexical: a1 and b1 hold both words (1.0), a2 none; the model: a1 5+10+2 = 17,
    # b1 10+5+2 = 17, a2 "fee box." 30+20+0+2 = 52 → a2 first, then a1 and b1 in order
    assert [r.chunk.id for r in ranked] == ["a2", "a1", "b1"]
    assert [r.score for r in ranked] == [52.0, 17.0, 17.0]
    assert cache.exists()


CANDIDATES = """
[settings]
baseline = "r"
retriever = "lexical"

[[candidate]]
name = "r"
splitter = "chars"
size = 100
RERANK
"""


@pytest.mark.parametrize(
    ("make", "rerank", "key", "words"),
    [
        ("", 'model_path = "missing.onnx"', "rerank.model_path", "No such file"),
        ("link", 'model_path = "link.onnx"', "rerank.model_path", "symbolic link"),
        ("fifo", 'model_path = "fifo.onnx"', "rerank.model_path", "FIFO"),
        ("dir", 'model_path = "dir.onnx"', "rerank.model_path", "a directory"),
        ("", 'model_path = "model.onnx", tokenizer = "nope.json"', "rerank.tokenizer",
         "No such file"),
        ("", 'model_path = "model.onnx", url = "http://h:1/r"', "rerank.url", "not both"),
        ("", 'url = "http://h:1/r", max_tokens = 9', "rerank.max_tokens", "model_path"),
        ("", 'model_path = "model.onnx", max_tokens = 4', "rerank.max_tokens", "[8, 8192]"),
        ("", 'model_path = ""', "rerank.model_path", "a file path"),
        ("", "model_path = 3", "rerank.model_path", "a file path"),
    ],
)  # fmt: skip
def test_model_files_that_are_not_regular_files_are_refused_before_any_work(
    model: Path, tmp_path: Path, make: str, rerank: str, key: str, words: str
) -> None:
    if make == "link":
        os.symlink(model, tmp_path / "link.onnx")
    elif make == "fifo":
        os.mkfifo(tmp_path / "fifo.onnx")
    elif make == "dir":
        (tmp_path / "dir.onnx").mkdir()
    path = tmp_path / "candidates.toml"
    path.write_text(CANDIDATES.replace("RERANK", f"rerank = {{ {rerank} }}"))
    with pytest.raises(ConfigError) as info:
        read(path)
    assert info.value.key == key
    assert words in str(info.value) and "'r'" in str(info.value)


@pytest.mark.parametrize(
    ("content", "key", "words"),
    [
        (b"not a model at all", "rerank.model_path", "not an ONNX model onnxruntime can run"),
        (None, "rerank.tokenizer", "not a tokenizer.json"),
    ],
)
def test_a_file_that_is_not_onnx_or_no_tokenizer_is_refused_when_loaded(
    model: Path, content: bytes | None, key: str, words: str
) -> None:
    if content is not None:
        model.write_bytes(content)
    else:
        (model.parent / "tokenizer.json").write_text("{\x1b[31m broken")
    with pytest.raises(ConfigError) as info:
        CrossEncoder(str(model), str(model.parent / "tokenizer.json"), 512)
    assert info.value.key == key and words in info.value.message
    assert "\x1b" not in info.value.message
