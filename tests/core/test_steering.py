"""Steering keys (§21, labeler.core.team.steering) on files made in the test's folder: with
no team file spanlab.toml steers as it always did; beside a team file, a group-writable
spanlab.toml's steering keys count for nothing (named), the lead's file's do."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from labeler.core.errors import ConfigError
from labeler.core.project import config
from labeler.core.team.steering import (
    ignored_warning,
    others_in_group,
    others_may_write,
    unguarded_warning,
)
from tests.cli.accounts import accounts

TEAM = '[team]\nleads = ["root"]\nannotators = ["ann"]\n'
MALLORY = ('corpus = "mc"\nfollow_symlinks = true\ndb = "mine.db"\n'
           'chroma_url = "http://127.0.0.1:9"\ninclude = ["**/*.md"]\nembedding_cache = "c.db"\n'
           'trim_spans = false\n')  # fmt: skip


def write(path: Path, text: str, mode: int) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def test_without_a_team_file_spanlab_toml_steers_as_before(tmp_path: Path) -> None:
    write(tmp_path / "spanlab.toml", MALLORY, 0o664)
    proj = config.load(tmp_path)
    assert (proj.corpus, proj.db, proj.chroma_url) == (
        tmp_path / "mc",
        tmp_path / "mine.db",
        "http://127.0.0.1:9",
    )
    assert proj.follow_symlinks is True and proj.include.include == ("**/*.md",)
    assert proj.ignored_steering == () and proj.lead_keys == frozenset()


def test_beside_a_team_file_the_groups_steering_keys_are_ignored_and_named(tmp_path: Path) -> None:
    write(tmp_path / "spanlab.toml", MALLORY, 0o664)
    write(tmp_path / "spanlab.team.toml", f'corpus = "corpus"\n{TEAM}', 0o644)
    proj = config.load(tmp_path)
    assert proj.corpus == tmp_path / "corpus" and proj.db == tmp_path / ".spanlab/labels.db"
    assert proj.chroma_url is None and proj.follow_symlinks is False
    assert (
        proj.include.include == () and proj.embedding_cache == tmp_path / ".spanlab/embeddings.db"
    )
    assert proj.trim_spans is False  # a preference: the group's to set
    assert proj.ignored_steering == ("corpus", "include", "follow_symlinks", "db", "chroma_url",
                                     "embedding_cache")  # fmt: skip
    assert proj.lead_keys == frozenset({"corpus"})


def test_what_init_writes_at_its_defaults_is_not_warned_of(tmp_path: Path) -> None:
    init = ('corpus = "corpus"\ndb = ".spanlab/labels.db"\nchroma_path = ".spanlab/chroma"\n'
            'embedding = "minilm"\n')  # fmt: skip
    write(tmp_path / "spanlab.toml", init, 0o660)
    write(tmp_path / "spanlab.team.toml", f'corpus = "corpus"\n{TEAM}', 0o644)
    assert config.load(tmp_path).ignored_steering == ()


def test_a_spanlab_toml_only_a_lead_may_write_steers_beside_the_team_file(tmp_path: Path) -> None:
    write(tmp_path / "spanlab.toml", 'corpus = "docs"\nchroma_url = "http://127.0.0.1:1"\n', 0o644)
    write(tmp_path / "spanlab.team.toml", TEAM, 0o644)
    proj = config.load(tmp_path)
    assert proj.corpus == tmp_path / "docs" and proj.chroma_url == "http://127.0.0.1:1"
    assert proj.ignored_steering == () and proj.lead_keys == {"corpus", "chroma_url"}


def test_no_corpus_because_it_was_ignored_says_where_a_lead_sets_it(tmp_path: Path) -> None:
    write(tmp_path / "spanlab.toml", 'corpus = "mc"\n', 0o664)
    write(tmp_path / "spanlab.team.toml", TEAM, 0o644)
    with pytest.raises(ConfigError) as caught:
        config.load(tmp_path).require_corpus()
    assert caught.value.file == str(tmp_path / "spanlab.team.toml")
    assert "spanlab.toml's `corpus` counts only when a lead's file sets it" in caught.value.message


def test_a_team_files_steering_value_is_checked_naming_the_team_file(tmp_path: Path) -> None:
    write(tmp_path / "spanlab.team.toml", f"follow_symlinks = 1\n{TEAM}", 0o644)
    with pytest.raises(ConfigError) as caught:
        config.load(tmp_path)
    assert str(caught.value).startswith(
        f"{tmp_path}/spanlab.team.toml, key follow_symlinks: 'follow_symlinks' must be true"
    )


def test_the_warning_names_the_keys_and_the_file() -> None:
    assert ignored_warning(("corpus", "db"), "spanlab.toml", "spanlab.team.toml").startswith(
        "warning: spanlab.toml sets corpus, db, ignored: in a team project what steers a command"
    )


def test_a_file_the_group_may_write_is_anothers(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", "", 0o664)
    assert (
        others_may_write(path.stat())
    ) == "its group or others may write it (owner root, group root, mode 0664)"
    path.chmod(0o644)
    assert others_may_write(path.stat()) is None


def test_a_folder_outside_the_project_counts_when_the_team_file_names_it(tmp_path: Path) -> None:
    from labeler.core.project import folders

    root, elsewhere = tmp_path / "p", tmp_path / "cache"
    root.mkdir()
    elsewhere.mkdir()
    team = f'embedding_cache = "{elsewhere}/e.db"\nchroma_url = "http://127.0.0.1:2"\n{TEAM}'
    write(root / "spanlab.team.toml", team, 0o644)
    proj = folders.opened(root)
    assert proj.embedding_cache == elsewhere / "e.db" and proj.chroma_url == "http://127.0.0.1:2"
    write(root / "spanlab.team.toml", TEAM, 0o644)
    write(root / "spanlab.toml", f'embedding_cache = "{elsewhere}/e.db"\n', 0o664)
    assert folders.opened(root).embedding_cache == root / ".spanlab/embeddings.db"  # ignored


@pytest.mark.skipif(os.geteuid() != 0, reason="a group with other members needs root (CI is)")
def test_without_a_team_file_a_spanlab_toml_another_member_may_write_is_warned_of(
    tmp_path: Path,
) -> None:
    """No lead yet, so its keys count; but the person running hears that a member could
    have chosen them (the group's file, another account in the group)."""
    lead = accounts()[0]
    path = write(tmp_path / "spanlab.toml", 'corpus = "mc"\ndb = ".spanlab/labels.db"\n', 0o664)
    os.chown(path, 0, lead.group)
    proj = config.load(tmp_path)
    assert proj.corpus == tmp_path / "mc"  # counts: there is no lead to take it from
    assert proj.unguarded_steering == ("corpus",)  # db at its default steers nothing
    assert "group spl19labelers, mode 0664" in proj.unguarded_why
    said = unguarded_warning(proj.unguarded_steering, "spanlab.toml", proj.unguarded_why,
                             "spanlab.team.toml")  # fmt: skip
    assert said.startswith(
        "warning: spanlab.toml sets corpus, and its group or others may write it (owner root, "
        "group spl19labelers, mode 0664): whoever writes it chooses"
    )
    path.chmod(0o644)  # the runner's alone: nothing to say
    assert config.load(tmp_path).unguarded_steering == ()
    path.chmod(0o664)
    os.chown(path, 0, 0)
    assert config.load(tmp_path).unguarded_steering == (("corpus",) if others_in_group(0) else ())
