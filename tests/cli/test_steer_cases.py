"""The small cases of issue 39 (§21), one table: each drives spanlab as a person would and
checks the exit code, the words and that nothing was written or shown that should not be."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from evaluator.chunk import Chunk
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.items import ChunkLookup
from evaluator.retrieval.rerank import RerankModel
from evaluator.retrieval.search_http import HttpRetriever
from evaluator.retrieval.treatment import Rerank
from labeler.cli import app
from labeler.core.errors import ConfigError
from tests.conftest import write_corpus

TEXT = "Refunds take 30 days.\n"
LEAKY = "http://bob:hunter2@127.0.0.1:9/{}?api_key=sk-LEAK-1&token=ghp_LEAK2"
"""A URL with a user, a password and two keys, to a port nothing listens on."""


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": TEXT})
    assert run("init", "corpus").exit_code == 0
    (tmp_path / "q.txt").write_text("How long do refunds take?\n", encoding="utf-8")
    assert run("labels", "import", "q.txt").exit_code == 0  # a draft: no evidence
    return tmp_path


@pytest.mark.parametrize("fmt", ["doccano", "prodigy", "argilla"])
def test_an_export_that_can_write_nothing_exits_2_saying_why(workdir: Path, fmt: str) -> None:
    done = run("labels", "export", "out.jsonl", "--format", fmt)
    assert done.exit_code == 2, done.output
    assert (f"out.jsonl: no query has evidence {fmt} can hold (1 quer(y/ies) without evidence "
            "left out: no document text); nothing was written") in done.stderr  # fmt: skip
    assert "wrote 0" not in done.output and not (workdir / "out.jsonl").exists()


def test_the_spanlab_format_still_writes_drafts(workdir: Path) -> None:
    done = run("labels", "export", "frozen.json")
    assert done.exit_code == 0 and "wrote 1 queries" in done.stdout


def test_a_link_at_the_journal_is_named_as_a_link(workdir: Path) -> None:
    journal = workdir / ".spanlab" / "labels.db-journal"
    journal.symlink_to("/etc/hostname")
    done = run("labels", "stats")
    assert done.exit_code == 2, done.output
    assert (
        f"{journal}: a symbolic link owned by root (to /etc/hostname) is here, where "
        "spanlab keeps a regular file of its own: refused, left as it is"
    ) in done.stderr
    assert "unable to open database file" not in done.output
    assert journal.is_symlink()


def test_an_include_bomb_in_spanlab_toml_is_a_clear_error_at_once(workdir: Path) -> None:
    toml = workdir / "spanlab.toml"
    toml.write_text(toml.read_text() + f'include = ["{"**/" * 2000}x"]\n', encoding="utf-8")
    start = time.perf_counter()
    done = run("corpus", "status")
    assert time.perf_counter() - start < 1.0
    assert done.exit_code == 2
    assert (f"{toml}, key include[0]: 'include' glob 1 is 6,001 characters long (at most "
            "512)") in done.stderr  # fmt: skip


@pytest.mark.parametrize("role", ["search", "rerank"])
def test_a_servers_credentials_are_never_in_its_failure(role: str) -> None:
    url = LEAKY.format(role)
    with pytest.raises(ConfigError) as caught:
        if role == "search":
            lookup = ChunkLookup([Chunk("c1", "a.md", 0, 7)], {"a.md": TEXT})
            retriever = HttpRetriever(url, lookup, timeout=0.5, budget=1.0, retries=1)
            retriever.search([QueryInput("q", "refunds")], depth=2)
        else:
            RerankModel(Rerank(url, "m"), timeout=0.5, budget=1.0, retries=1).score("q", ["a"])
    said = str(caught.value)
    assert f"{role} server http://[redacted]@127.0.0.1:9/{role}?api_key=[redacted]" in said
    assert "&token=[redacted]" in said
    for leak in ("bob", "hunter2", "sk-LEAK-1", "ghp_LEAK2"):
        assert leak not in said


def test_a_chroma_urls_token_is_not_shown_by_cache(workdir: Path) -> None:
    done = run("cache", "--chroma-url", "http://127.0.0.1:9/?token=ghp_LEAK3")
    assert "ghp_LEAK3" not in done.output, done.output
    assert "token=[redacted]" in done.output
    assert os.path.exists(workdir / "spanlab.toml")
