"""`spanlab init` and `corpus status` on corpus hazards (§13): refused with the file named."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.errors import ConfigError
from labeler.core.project import config
from tests.conftest import write_corpus


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": "alpha\n"})
    (tmp_path / "secret.txt").write_text("canary\n")
    return tmp_path


def test_init_refuses_a_file_name_that_is_not_utf8(workdir: Path) -> None:
    os.close(os.open(b"corpus/caf\xe9.md", os.O_CREAT | os.O_WRONLY))
    done = run("init", "corpus")
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith("error: corpus/caf\\xe9.md: invalid document id")
    assert not (workdir / "spanlab.toml").exists()


def test_init_refuses_a_tab_in_a_file_name(workdir: Path) -> None:
    (workdir / "corpus" / "x.txt\tsha256:00\ny.txt").write_text("two")
    done = run("init", "corpus")
    assert done.exit_code == 2
    assert "U+0009" in done.stderr and "corpus/x.txt\\tsha256:00\\ny.txt" in done.stderr


def test_a_link_outside_is_refused_then_followed_when_asked(workdir: Path) -> None:
    (workdir / "corpus" / "leak.txt").symlink_to(workdir / "secret.txt")
    refused = run("init", "corpus")
    assert refused.exit_code == 2
    assert "corpus/leak.txt" in refused.stderr and "--follow-symlinks" in refused.stderr
    assert not (workdir / "spanlab.toml").exists()
    followed = run("init", "corpus", "--follow-symlinks")
    assert followed.exit_code == 0, followed.stderr
    assert "2 documents" in followed.stdout
    toml = tomllib.loads((workdir / "spanlab.toml").read_text("utf-8"))
    assert toml["follow_symlinks"] is True
    status = run("corpus", "status", "--json")
    assert status.exit_code == 0, status.stderr
    assert '"documents": 2' in status.stdout


def test_skipped_links_are_named_in_warnings(workdir: Path) -> None:
    (workdir / "outside").mkdir()
    (workdir / "corpus" / "linkdir").symlink_to(workdir / "outside")
    (workdir / "corpus" / "gone.md").symlink_to(workdir / "nothing.md")
    done = run("init", "corpus")
    assert done.exit_code == 0, done.stderr
    assert "warning: skipped gone.md (dangling link, or a link loop)" in done.stderr
    assert "warning: skipped linkdir (symlinked folder, not followed" in done.stderr
    status = run("corpus", "status")
    assert "warning: skipped linkdir" in status.stderr


@pytest.mark.parametrize("line", ['follow_symlinks = "yes"', "follow_symlinks = 1"])
def test_follow_symlinks_in_the_config_must_be_a_bool(tmp_path: Path, line: str) -> None:
    (tmp_path / config.CONFIG_NAME).write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="'follow_symlinks' must be true or false"):
        config.load(tmp_path)
    (tmp_path / config.CONFIG_NAME).write_text("follow_symlinks = false\n", encoding="utf-8")
    assert config.load(tmp_path).follow_symlinks is False
