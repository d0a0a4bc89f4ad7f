"""The one helper for files spanlab makes (labeler.core.files.sharing, §15), and the SQLite
behaviour it is built on, checked on this machine's SQLite rather than taken on trust."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from labeler.core.errors import ConfigError, UnsafeFile
from labeler.core.files import sharing
from labeler.core.project import config

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="giving files a group needs root (CI is)")

GID = 4242
"""A group no file of the test starts with (root may give files any group)."""


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chown(folder, -1, GID)
    folder.chmod(0o2775)
    return folder


def test_sqlite_makes_a_new_database_0644_and_its_wal_in_the_databases_mode(
    tmp_path: Path, umask: None
) -> None:
    os.umask(0o002)
    with sqlite3.connect(tmp_path / "own.db") as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE t (x)")
        assert mode(tmp_path / "own.db") == 0o644  # whatever the umask: why we create it
        os.umask(0o022)
        made = tmp_path / "made.db"
        sharing.create_empty(made)
        made.chmod(0o664)
        with sqlite3.connect(made) as other:
            other.execute("PRAGMA journal_mode = WAL")
            other.execute("CREATE TABLE t (x)")
            assert mode(Path(f"{made}-wal")) == mode(Path(f"{made}-shm")) == 0o664


def test_a_setgid_folder_shares_and_a_plain_one_does_not(shared: Path, tmp_path: Path) -> None:
    assert sharing.share_of(shared) == sharing.Share(GID, "setgid folder")
    assert sharing.share_of(tmp_path) is None
    owned = tmp_path / "owned"
    owned.mkdir()
    os.chown(owned, -1, GID)
    owned.chmod(0o775)
    assert sharing.share_of(owned) == sharing.Share(GID, "group-owned folder")
    owned.chmod(0o755)  # the group may not write there: not shared
    assert sharing.share_of(owned) is None


def test_files_and_folders_in_a_shared_folder_are_the_groups(shared: Path, umask: None) -> None:
    sharing.write_text(shared / "a.json", "{}")
    sharing.make_folder(shared / "x" / "y")
    sharing.create_empty(shared / "s.db")
    assert [mode(shared / n) for n in ("a.json", "x", "x/y", "s.db")] == [
        0o660,
        0o2770,
        0o2770,
        0o660,
    ]  # fmt: skip  (§20: nothing for "other", whatever the umask)
    assert {(shared / n).stat().st_gid for n in ("a.json", "x", "x/y", "s.db")} == {GID}
    os.umask(0o077)  # "other" keeps out, the group stays in
    sharing.write_text(shared / "b.json", "{}")
    assert mode(shared / "b.json") == 0o660


def test_a_one_person_folder_gets_the_umasks_modes_and_no_0700(tmp_path: Path, umask: None) -> None:
    run = sharing.make_temp_folder(tmp_path / "runs", ".r.")
    sharing.write_text(run / "run.json", "{}")
    assert mode(run) == 0o700  # while it is filled: no one else's to plant a file in
    sharing.publish_folder(run, tmp_path / "runs" / "r")
    run = tmp_path / "runs" / "r"
    assert (mode(tmp_path / "runs"), mode(run), mode(run / "run.json")) == (0o755, 0o755, 0o644)


def test_a_folder_filled_aside_in_a_shared_one_is_the_groups_but_private_until_published(
    shared: Path, umask: None
) -> None:
    run = sharing.make_temp_folder(shared / "runs", ".r.")
    sharing.write_text(run / "run.json", "{}")
    assert (mode(run), run.stat().st_gid, mode(run / "run.json")) == (0o2700, GID, 0o660)
    sharing.publish_folder(run, shared / "runs" / "r")
    assert mode(shared / "runs" / "r") == 0o2770


def test_a_refused_write_leaves_the_folder_there_and_no_aside(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    with pytest.raises(UnsafeFile) as caught:
        sharing.write_text(tmp_path / "out", "text")  # a folder is never replaced by a file
    assert caught.value.message == (
        "a folder owned by root is here, where spanlab writes a regular file (never a FIFO, "
        "device, folder or link): refused, left as it is"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (tmp_path / "out").is_dir()


def test_an_own_store_in_a_shared_folder_gets_its_group_bits_back(shared: Path) -> None:
    db = shared / "labels.db"
    for path in (db, Path(f"{db}-wal")):
        path.write_bytes(b"")
        path.chmod(0o644)
    sharing.create_empty(db)
    assert mode(db) == mode(Path(f"{db}-wal")) == 0o660


def test_a_library_writing_in_a_shared_folder_makes_group_files(shared: Path, umask: None) -> None:
    with sharing.library_writes(shared / "chroma"):
        assert sharing.umask() == 0o007
        (shared / "chroma" / "seg").mkdir()
        fd = os.open(shared / "chroma" / "seg" / "data.bin", os.O_CREAT | os.O_WRONLY, 0o644)
        os.close(fd)
    assert sharing.umask() == 0o022
    assert mode(shared / "chroma" / "seg" / "data.bin") == 0o660
    assert mode(shared / "chroma" / "seg") == 0o2770


def test_a_group_in_spanlab_toml_is_a_group_name(tmp_path: Path) -> None:
    (tmp_path / "spanlab.toml").write_text('group = "labelers"\n', encoding="utf-8")
    assert config.load(tmp_path).group == "labelers"
    (tmp_path / "spanlab.toml").write_text('group = "lab\\u001b[2Jelers"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        config.load(tmp_path)
    assert (caught.value.key, caught.value.message) == (
        "group",
        "'group' must be a Unix group name",
    )
