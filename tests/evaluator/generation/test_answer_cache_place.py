"""Where a team member's answers are kept (§21, §23): their own, 0640, in their own folder,
so no other member can edit the answers their verdicts are read from."""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

import pytest

from evaluator.generation.cache import AnswerCache
from evaluator.pipeline.generated import CACHE_NAME, answers_path
from labeler.core.project.cache_place import CachePlace


def place(tmp_path: Path) -> CachePlace:
    me = pwd.getpwuid(os.geteuid()).pw_name
    return CachePlace(tmp_path / "embeddings", "embeddings.db", me, (), tmp_path / "e.db")


def test_a_members_answers_are_theirs_alone(tmp_path: Path) -> None:
    where = place(tmp_path)
    path, private = answers_path(where)
    assert (path, private) == (str(where.own.parent / CACHE_NAME), True)
    AnswerCache(path, private=private).close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert stat.S_IMODE(os.stat(where.own.parent).st_mode) & 0o7777 == 0o2750


def test_answers_in_a_folder_others_may_write_are_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = place(tmp_path)
    where.own.parent.mkdir(parents=True)
    os.chmod(where.own.parent, 0o2770)
    assert answers_path(where) == (":memory:", False)
    assert "your answer cache is not used" in capsys.readouterr().err


def test_a_group_writable_answers_file_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = place(tmp_path)
    answers_path(where)
    (where.own.parent / CACHE_NAME).write_bytes(b"")
    os.chmod(where.own.parent / CACHE_NAME, 0o660)
    assert answers_path(where) == (":memory:", False)
    assert "writable by its group" in capsys.readouterr().err


def test_without_a_team_the_file_sits_beside_the_one_cache(tmp_path: Path) -> None:
    assert answers_path(tmp_path / "embeddings.db") == (str(tmp_path / CACHE_NAME), False)
    assert answers_path(None) == (":memory:", False)
