"""What every candidate of one run shares (§6, §7): the frozen settings, the corpus and its
texts, the token counter, the vectors through the cache, and where things live."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evaluator.candidates import Settings
from evaluator.chunking.tokenizers import TokenizerAdapter
from evaluator.embedding.vectors import VectorSource
from evaluator.metrics import TokenCounter
from evaluator.pipeline.options import RunOptions
from labeler.core.corpus.folder import Corpus


@dataclass(frozen=True)
class Context:
    """What every candidate of one run shares."""

    settings: Settings
    """The frozen `[settings]`."""
    corpus: Corpus
    """The corpus as read."""
    texts: Mapping[str, str]
    """Document id -> canonical text (read when asked for: the corpus is not held, §6)."""
    counter: TokenCounter
    """Counts tokens with the settings' tokenizer."""
    tokenizer: TokenizerAdapter
    """The settings' tokenizer, for counting many chunks in one call."""
    vectors: VectorSource
    """Embeds texts through the cache, the model loaded on first use."""
    options: RunOptions
    """Where indexes and the cache live."""
