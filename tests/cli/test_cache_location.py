"""Where the embedding cache lives is a setting (§6): SPANLAB_CACHE, else spanlab.toml's
`embedding_cache`, else .spanlab/embeddings.db; a place it cannot be written is a clear
error naming it, exit 2, no traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from labeler.core.project import config
from tests.cli.test_resume import CANDIDATES, COUNTS, DEMO
from tests.evaluator.embedding.hash_server import HashState, serve


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    import shutil

    shutil.copytree(DEMO / "corpus", tmp_path / "corpus")
    shutil.copy(DEMO / "labels.json", tmp_path / "frozen.json")
    (tmp_path / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    httpd = serve(HashState(dim=8))
    monkeypatch.setenv("SPANLAB_EMBEDDING_URL", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("SPANLAB_CACHE", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    httpd.shutdown()


def gate() -> tuple[int, str]:
    result = CliRunner().invoke(app, ["gate", "candidates.toml", "--labels", "frozen.json"])
    return result.exit_code, result.stderr


def test_the_default_is_beside_the_runs(folder: Path) -> None:
    code, err = gate()
    assert code in (0, 1), err
    assert (folder / ".spanlab" / "embeddings.db").is_file()
    match = COUNTS.search(err)
    assert match is not None and int(match.group(1).replace(",", "")) > 0, err


def test_spanlab_toml_names_the_cache_and_the_variable_wins(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "spanlab.toml").write_text(
        'corpus = "corpus"\nembedding_cache = "kept/from-toml.db"\n', "utf-8"
    )
    assert config.load(folder).embedding_cache == folder / "kept" / "from-toml.db"
    code, err = gate()
    assert code in (0, 1) and (folder / "kept" / "from-toml.db").is_file(), err
    monkeypatch.setenv("SPANLAB_CACHE", str(folder / "env.db"))
    code, err = gate()
    assert code in (0, 1) and (folder / "env.db").is_file(), err
    assert "embeddings: 0 embedded" not in err  # a new, empty cache
    code, err = gate()
    assert "embeddings: 0 embedded" in err


def test_a_cache_that_cannot_be_written_is_exit_2_naming_it(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "blocker").write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("SPANLAB_CACHE", "blocker/embeddings.db")
    code, err = gate()
    assert code == 2, err
    assert "embedding cache cannot be written" in err
    assert str(folder / "blocker" / "embeddings.db") in err
    assert "Traceback" not in err
    assert not (folder / ".spanlab" / "runs").exists() or not any(
        (folder / ".spanlab" / "runs").iterdir()
    )
