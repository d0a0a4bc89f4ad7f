"""Library adapters: tiktoken's cache in a temporary folder, ambiguity warnings recorded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _tiktoken_cache(tiktoken_cache: None) -> Iterator[None]:
    yield
