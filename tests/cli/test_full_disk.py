"""A write the disk refuses (§13, §15): exit 2 naming the file, no traceback, nothing half
written. The disk is made "full" for real with a file-size limit (RLIMIT_FSIZE, SIGXFSZ
ignored) in a child process, so every write past the limit fails with EFBIG.
"""

from __future__ import annotations

import resource
import signal
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from evaluator.embedding.cache import EmbeddingCache
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import StoreError
from labeler.core.labels import labelset
from labeler.core.values import Query, Span
from tests.cli.accounts import in_child

TEXT = "Refunds take 30 days.\nShipping is free over 50 EUR.\n"
FULL = "(the disk is full, or the file over its size limit)"


def limit(size: int) -> Any:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


def spanlab(*args: str) -> dict[str, Any]:
    done = CliRunner().invoke(app, list(args))
    crash = done.exception
    err = done.stderr + ("" if isinstance(crash, SystemExit | None) else repr(crash))
    return {"code": done.exit_code, "err": err}


ROOM = 40 * 1024
"""Room for the store's WAL index (32 KiB), not for a file of 600 queries."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text(TEXT, encoding="utf-8")
    many = "".join(f"How long do refunds take, case {i}?\n" for i in range(600))
    (tmp_path / "q.txt").write_text(many, encoding="utf-8")
    done = in_child(None, tmp_path, lambda: spanlab("init", "corpus"))
    assert done["code"] == 0, done
    assert in_child(None, tmp_path, lambda: spanlab("labels", "import", "q.txt"))["code"] == 0
    return tmp_path


def test_an_export_on_a_full_disk_names_the_file(project: Path) -> None:
    done = in_child(None, project, lambda: spanlab("labels", "export", "out.json"),
                    before=limit(ROOM))  # fmt: skip
    assert done["code"] == 2, done
    assert f"out.json: cannot write: File too large {FULL}" in done["err"]
    assert sorted(p.name for p in project.iterdir()) == [".spanlab", "corpus", "q.txt",
                                                          "spanlab.toml"]  # fmt: skip
    assert "Traceback" not in done["err"]


def test_a_store_write_on_a_full_disk_is_exit_2_and_keeps_what_was_there(project: Path) -> None:
    many = "".join(f"Question number {i} about refunds and shipping?\n" for i in range(3000))
    (project / "many.txt").write_text(many, encoding="utf-8")
    done = in_child(None, project, lambda: spanlab("labels", "import", "many.txt"),
                    before=limit(32 * 1024))  # fmt: skip
    assert done["code"] == 2, done
    assert ".spanlab/labels.db: the label store cannot be written" in done["err"]
    assert "is full (or the file is over its size limit): free space" in done["err"]
    with sqlite3.connect(project / ".spanlab" / "labels.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM queries").fetchone() == (600,)


def test_a_run_on_a_full_disk_leaves_no_run_folder(project: Path) -> None:
    (project / "c.toml").write_text(
        '[settings]\nbaseline = "c40"\nk = 2\ndepth = 5\nretriever = "lexical"\n\n'
        '[[candidate]]\nname = "c40"\nsplitter = "chars"\nsize = 40\n',
        encoding="utf-8",
    )
    corpus = Corpus.read(project / "corpus")
    span = Span.from_text(TEXT, "a.md", 0, 21)
    queries = [Query(f"q-{i:04d}", f"How long, case {i}?", evidence=(span,)) for i in range(1, 301)]
    labelset.write_json(labelset.to_json(queries, corpus), project / "labels.json")
    done = in_child(None, project, lambda: spanlab("eval", "c.toml", "--labels", "labels.json"),
                    before=limit(ROOM))  # fmt: skip
    assert done["code"] == 2, done
    assert f"run.json: cannot write: File too large {FULL}" in done["err"]
    runs = project / ".spanlab" / "runs"
    assert not runs.exists() or list(runs.iterdir()) == []


def test_the_embedding_cache_on_a_full_disk_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.db"
    EmbeddingCache(path).close()

    def fill() -> dict[str, Any]:
        vectors = np.ones((400, 384), dtype=np.float32)
        try:
            with EmbeddingCache(path) as cache:
                cache.put_many("m", [f"text {i}" for i in range(400)], vectors)
        except StoreError as exc:
            return {"error": str(exc)}
        return {}

    done = in_child(None, tmp_path, fill, before=limit(64 * 1024))
    assert f"{path}: embedding cache: " in done["error"], done
    assert "is full (or the file is over its size limit)" in done["error"]
