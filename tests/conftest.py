"""Shared fixtures: a corpus folder written from a dict, and an in-memory label store.

Tests build their world from small literal documents so every expected offset and hash
can be worked out by hand beside the assertion.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Protocol

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.resources import bundled
from labeler.core.store import Store


class CorpusWriter(Protocol):
    def __call__(self, files: Mapping[str, str | bytes], name: str = "corpus") -> Path: ...


def write_corpus(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write `files` ({relative path: text or raw bytes}) below `root`; text as UTF-8."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        path.write_bytes(data)
    return root


def write_demo_project(root: Path) -> Path:
    """Copy the bundled demo's corpus and corpus-v2 below `root` and write `labels.db`
    bound to the first with labels.json imported: the starting point of every review test."""
    source = bundled("data/demo")
    for name in ("corpus", "corpus-v2"):
        shutil.copytree(source / name, root / name)
    old = Corpus.read(root / "corpus")
    store = Store.open(root / "labels.db")
    store.bind(old.doc_hashes)
    queries = labelset.read(source / "labels.json", old).queries
    labelset.import_queries(store, queries, old, annotator="demo")
    store.close()  # the last connection checkpoints the WAL into labels.db
    return root


@pytest.fixture
def make_corpus(tmp_path: Path) -> CorpusWriter:
    """Write a corpus folder below tmp_path; returns its path."""

    def make(files: Mapping[str, str | bytes], name: str = "corpus") -> Path:
        return write_corpus(tmp_path / name, files)

    return make


@pytest.fixture
def memory_store() -> Iterator[Store]:
    """A migrated, unbound store in memory."""
    store = Store.memory()
    yield store
    store.close()


def table_dump(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, for 'nothing was written' assertions."""
    names = [
        r[0]
        for r in store.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
    ]
    return {
        name: [tuple(row) for row in store.conn.execute(f"SELECT * FROM {name} ORDER BY rowid")]
        for name in names
    }
