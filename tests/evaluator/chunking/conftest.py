"""Fixtures for the chunking tests: tiktoken's cache goes to a temporary folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def tiktoken_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Point TIKTOKEN_CACHE_DIR at a fresh folder so tests never write to the home cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path_factory.mktemp("tiktoken")))
        yield
