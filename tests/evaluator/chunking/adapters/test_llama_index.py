"""llama-index-core: `find`-placed nodes verified; header_path becomes the prefix."""

from __future__ import annotations

import pytest

from evaluator.chunking import split_text
from evaluator.chunking.adapters import AmbiguousPlacement
from labeler.core.errors import ConfigError

from .hard_docs import HARD_DOCS
from .helpers import cut_all, spec


def test_markdown_node_parser_gives_header_path_as_prefix() -> None:
    text = "# Guide\n\nIntro text.\n\n## Setup\n\nInstall it.\n\n## Use\n\nRun it."
    pieces = split_text(spec("llama-index:MarkdownNodeParser"), text, "guide")
    assert [p.prefix for p in pieces] == ["", "Guide", "Guide"]
    assert text[pieces[1].start : pieces[1].end] == "## Setup\n\nInstall it."


def test_markdown_node_parser_verifies_on_every_hard_document() -> None:
    assert all(cut_all(spec("llama-index:MarkdownNodeParser")).values())


def test_sentence_splitter_on_repeated_text_is_named() -> None:
    s = spec("llama-index:SentenceSplitter", chunk_size=40, chunk_overlap=5)
    with pytest.raises(ConfigError) as caught:
        split_text(s, HARD_DOCS["repeat"], "repeat")
    assert caught.value.message.startswith("document 'repeat', chunk 1 at (3, 80)")
    assert "lies inside the chunk before it (0, 119)" in caught.value.message


def test_token_splitter_verifies_on_the_emoji_document() -> None:
    s = spec("llama-index:TokenTextSplitter", chunk_size=30, chunk_overlap=5)
    with pytest.warns(AmbiguousPlacement, match="19 chunk"):
        pieces = split_text(s, HARD_DOCS["emoji"], "emoji")
    assert len(pieces) == 21


def test_size_warnings_stay_off_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    s = spec("llama-index:SentenceSplitter", chunk_size=40, chunk_overlap=5)
    with pytest.warns(AmbiguousPlacement):  # the emoji document repeats its line
        split_text(s, HARD_DOCS["emoji"], "e")
    assert capsys.readouterr().out == ""
