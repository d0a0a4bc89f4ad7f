"""One real MiniLM session for the whole test run: building it is the slow part."""

from __future__ import annotations

import pytest

from evaluator.embedding.minilm import MiniLMEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder.from_packages()
