"""The demo store bound to corpus v1 with labels.json imported, and corpus v2 beside it.

Built once per session and copied per test, so every test starts from the same 32 stale
spans without paying for the import again.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.resources import bundled
from labeler.core.store import Store
from tests.conftest import write_demo_project
from tests.stores import copy_store


@dataclass(frozen=True)
class Demo:
    store: Store
    """A copy of the demo store, still bound to corpus v1."""
    new: Corpus
    """data/demo/corpus-v2."""
    expected: dict[str, Any]
    """corpus-v2-expected.json."""

    def expected_for(self, query: str, start: int) -> list[tuple[int, int]]:
        for e in self.expected["spans"]:
            if (e["query"], e["old_start"]) == (query, start):
                return [(x["start"], x["end"]) for x in e["expected"]]
        raise AssertionError(f"no expected entry for {query} at {start}")


@pytest.fixture(scope="session")
def review_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_demo_project(tmp_path_factory.mktemp("review-demo"))
    shutil.copyfile(bundled("data/demo") / "corpus-v2-expected.json", root / "expected.json")
    return root


@pytest.fixture
def demo(review_template: Path, tmp_path: Path) -> Demo:
    copy_store(review_template / "labels.db", tmp_path / "labels.db")
    expected = json.loads((review_template / "expected.json").read_text(encoding="utf-8"))
    return Demo(
        Store.open(tmp_path / "labels.db"), Corpus.read(review_template / "corpus-v2"), expected
    )
