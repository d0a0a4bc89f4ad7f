"""§20 at the helper: `sharing` opens no link, waits on no FIFO, and changes the mode only
of what spanlab made (labeler.core.files.nofollow says what that is). The attacks with real
accounts are in tests/cli/test_planted_files.py; these pin each rule on its own."""

from __future__ import annotations

import os
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from labeler.core.errors import UnsafeFile
from labeler.core.files import nofollow, sharing

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="giving files a group needs root (CI is)")

GID = 4242
"""A group no file of the test starts with."""


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chown(folder, -1, GID)
    folder.chmod(0o2770)
    return folder


@pytest.fixture
def alarm() -> Iterator[None]:
    """A test that would wait on a FIFO fails (SIGALRM) rather than hang the suite."""
    signal.alarm(60)
    yield
    signal.alarm(0)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    path.write_text("mine\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def looks(path: Path) -> tuple[int, int, bytes]:
    st = path.stat()
    return st.st_mode, st.st_gid, path.read_bytes()


@pytest.mark.parametrize("name", ["s.db", "s.db-wal", "s.db-shm"])
def test_a_link_at_a_database_or_its_wal_is_refused_and_its_target_left_alone(
    shared: Path, secret: Path, name: str
) -> None:
    before = looks(secret)
    (shared / name).symlink_to(secret)
    with pytest.raises(UnsafeFile) as caught:
        sharing.create_empty(shared / "s.db")
    assert caught.value.file == str(shared / name)
    assert caught.value.message == (
        f"a symbolic link owned by root (to {secret}) is here, where spanlab keeps a regular "
        "file of its own: refused, left as it is"
    )
    assert looks(secret) == before


def test_a_hard_link_is_not_ours_to_heal(shared: Path, secret: Path) -> None:
    os.link(secret, shared / "s.db-shm")
    with pytest.raises(UnsafeFile, match="a regular file with 2 links owned by root is here"):
        sharing.heal(shared / "s.db", sharing.share_of(shared))
    assert looks(secret)[0] & 0o7777 == 0o600


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_lock_file_that_is_not_a_file_is_refused_at_once(
    tmp_path: Path, alarm: None, kind: str
) -> None:
    path = tmp_path / ".c.lease"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    else:
        path.mkdir()
    with pytest.raises(UnsafeFile, match=r"\.c\.lease"):
        sharing.open_lock(path)
    assert not stat.S_ISREG(os.lstat(path).st_mode)


def test_a_lock_file_is_made_the_groups_and_opened_for_appending(shared: Path) -> None:
    with sharing.open_lock(shared / ".c.build-lock") as handle:
        assert handle.mode == "a"
    st = (shared / ".c.build-lock").stat()
    assert (st.st_mode & 0o7777, st.st_gid) == (0o660, GID)


def test_a_library_leaves_the_modes_of_files_it_did_not_make(shared: Path) -> None:
    chroma = shared / "chroma"
    sharing.make_folder(chroma)
    older = chroma / "older.bin"
    older.write_bytes(b"")
    older.chmod(0o600)  # an earlier file of ours: not made by this library call
    with sharing.library_writes(chroma):
        (chroma / "made.bin").write_bytes(b"")
    assert (older.stat().st_mode & 0o777, (chroma / "made.bin").stat().st_mode & 0o777) == (
        0o600,
        0o660,
    )


def test_a_link_in_a_librarys_folder_is_refused_before_it_writes(
    shared: Path, secret: Path
) -> None:
    chroma = shared / "chroma"
    sharing.make_folder(chroma / "seg")
    (chroma / "seg" / "data.bin").symlink_to(secret)
    wanted = "keeps only regular files and folders of its own"
    with pytest.raises(UnsafeFile, match=wanted), sharing.library_writes(chroma):
        pass
    assert looks(secret)[0] & 0o7777 == 0o600


def test_a_file_that_is_not_ours_keeps_its_mode(shared: Path) -> None:
    db = shared / "s.db"
    db.write_bytes(b"")
    os.chown(db, 65534, -1)  # nobody's
    db.chmod(0o600)
    sharing.create_empty(db)
    assert db.stat().st_mode & 0o7777 == 0o600


def test_the_kinds_a_refusal_names() -> None:
    assert nofollow.kind(os.lstat("/dev/null")) == "character device"
    assert nofollow.kind(os.lstat("/")) == "folder"
