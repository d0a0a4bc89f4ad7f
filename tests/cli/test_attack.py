"""Holes found attacking the merged tree as a team and an attacker would (issues 19, 20).

Each test is one hole: it fails on the tree before its fix. They drive the CLI end to end
on a small project, as a person would, and check what the store holds afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from tests.cli.test_import_writes import dump
from tests.conftest import write_corpus

TEXT = "Refunds take 30 days.\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": TEXT})
    assert run("init", "corpus").exit_code == 0
    return tmp_path


def test_a_label_no_span_carries_is_refused_not_an_evidence_free_import(workdir: Path) -> None:
    span = {"start": 0, "end": 7, "text": "Refunds", "labels": ["Answer"]}
    row = {"text": TEXT, "question": "How long do refunds take?", "label": [span]}
    (workdir / "min.json").write_text(json.dumps([row]), encoding="utf-8")
    before = dump(workdir)
    typo = run("labels", "import", "min.json", "--format", "label-studio-min", "--label", "answer")
    assert typo.exit_code == 2, typo.output
    assert "min.json" in typo.output and "--label" in typo.output and "'Answer'" in typo.output
    assert dump(workdir) == before
    right = run("labels", "import", "min.json", "--format", "label-studio-min", "--label", "Answer")
    assert right.exit_code == 0, right.output
    assert dump(workdir)["spans"]


def test_as_version_with_a_spanlab_label_set_is_refused_not_a_replace(workdir: Path) -> None:
    assert run("labels", "import", "q.txt", "--format", "queries").exit_code != 0  # no file yet
    (workdir / "q.txt").write_text("How long do refunds take?\n", encoding="utf-8")
    assert run("labels", "import", "q.txt", "--format", "queries").exit_code == 0
    assert run("labels", "export", "set.json").exit_code == 0
    data = json.loads((workdir / "set.json").read_text(encoding="utf-8"))
    data.pop("label_set_hash")
    data["queries"][0]["notes"] = "bob's notes"
    (workdir / "bob.json").write_text(json.dumps(data), encoding="utf-8")
    before = dump(workdir)
    args = ("labels", "import", "bob.json", "--as-version", "--version-of", "bob", "--replace")
    done = run(*args)
    assert done.exit_code == 2, done.output
    assert "--as-version" in done.output and "spanlab label set" in done.output
    assert dump(workdir) == before  # the lead's query is not replaced by bob's file


def test_version_of_without_as_version_is_refused_not_a_plain_import(workdir: Path) -> None:
    row = {"text": "How long do refunds take?"}
    (workdir / "p.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    before = dump(workdir)
    done = run("labels", "import", "p.jsonl", "--format", "prodigy", "--version-of", "bob")
    assert done.exit_code == 2, done.output
    assert "--version-of" in done.output and "--as-version" in done.output
    assert dump(workdir) == before


@pytest.mark.parametrize(
    ("url", "words"),
    [("http://127.0.0.1:8000/\x1b]0;PWN\x07", "holds a control character (\\x1b)"),
     ("http://lead:sk-SECRET-1@127.0.0.1:8000", "holds a user or password"),
     ("http://sk-SECRET-1@[::1:8000", "Invalid IPv6 URL")],
)  # fmt: skip
def test_a_chroma_url_with_a_control_or_a_password_is_refused_unquoted(
    workdir: Path, url: str, words: str
) -> None:
    done = run("eval", "--preset", "chroma-report", "--chroma-url", url)
    assert done.exit_code == 2, (done.output, done.exception)
    assert words in done.stderr and "chroma_url" in done.stderr
    assert "sk-SECRET" not in done.output and "\x1b" not in done.output


@pytest.mark.parametrize(
    ("url", "words"),
    [("http://[::1:8000", "Invalid IPv6 URL"), ("http://127.0.0.1:99999", "Port out of range"),
     ("http://127.0.0.1:1/\x1b]0;PWN\x07", "control character"), ("ftp://x", "http(s)://")],
)  # fmt: skip
def test_a_bad_embedding_server_url_is_one_error_not_a_traceback(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, url: str, words: str
) -> None:
    from evaluator.embedding.server import OpenAIEmbedder
    from labeler.core.errors import ConfigError

    monkeypatch.setenv("SPANLAB_EMBEDDING_URL", url)
    with pytest.raises(ConfigError) as caught:
        OpenAIEmbedder("some-model")
    assert words in caught.value.message and caught.value.key == "SPANLAB_EMBEDDING_URL"
    assert "\x1b" not in str(caught.value)


@pytest.mark.parametrize("content", ["", "\n\n  \n", "# only a comment\n", "question\n"])
def test_a_queries_file_without_a_question_is_refused(workdir: Path, content: str) -> None:
    name = "q.csv" if content == "question\n" else "q.txt"  # a CSV with its header only
    (workdir / name).write_text(content, encoding="utf-8")
    done = run("labels", "import", name, "--format", "queries")
    assert done.exit_code == 2, done.output
    assert name in done.stderr and "no question" in done.stderr
