"""A listed document is read without blocking and without following a link (§13, §21): a
file swapped after the listing for a FIFO or a link is refused naming it, never waited on."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from labeler.core.corpus import folder
from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.walk import Listing, walk
from labeler.core.errors import CorpusError


def swapped_after_listing(monkeypatch: pytest.MonkeyPatch, swap: Callable[[Path], None]) -> None:
    """The corpus read lists the folder, then `swap` changes it: the race a member wins."""

    def listed_then_swapped(root: Path, *, follow_symlinks: bool = False) -> Listing:
        listing = walk(root, follow_symlinks=follow_symlinks)
        swap(root)
        return listing

    monkeypatch.setattr(folder, "walk", listed_then_swapped)


def read_in_thread(root: Path, *, follow: bool = False) -> Corpus | BaseException:
    """The corpus read in a thread: a read that blocks fails the test in 10 s, no hang."""
    got: list[Corpus | BaseException] = []

    def read() -> None:
        try:
            got.append(Corpus.read(root, follow_symlinks=follow))
        except BaseException as exc:
            got.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the corpus read blocked on a document"
    return got[0]


def to_fifo(name: str) -> Callable[[Path], None]:
    def swap(root: Path) -> None:
        (root / name).unlink()
        os.mkfifo(root / name)

    return swap


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("Alpha.\n", encoding="utf-8")
    (tmp_path / "corpus" / "b.html").write_bytes(b"<p>Beta.</p>")
    (tmp_path / "secret.md").write_text("canary\n", encoding="utf-8")
    return tmp_path / "corpus"


def test_a_text_swapped_for_a_fifo_is_refused_at_once(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    swapped_after_listing(monkeypatch, to_fifo("a.md"))
    got = read_in_thread(root)
    assert isinstance(got, CorpusError)
    assert (got.file, got.message) == (
        str(root / "a.md"),
        "the file is a FIFO (named pipe), not a regular file",
    )


def test_a_source_swapped_for_a_fifo_is_passed_over_named(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    swapped_after_listing(monkeypatch, to_fifo("b.html"))
    got = read_in_thread(root)
    assert isinstance(got, Corpus) and list(got.documents) == ["a.md"]
    assert got.passed_over == ("b.html (the file is a FIFO (named pipe), not a regular file)",)


def test_a_link_swapped_in_is_not_followed_unless_links_are(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def to_link(root: Path) -> None:
        (root / "a.md").unlink()
        (root / "a.md").symlink_to(root.parent / "secret.md")

    swapped_after_listing(monkeypatch, to_link)
    got = read_in_thread(root)
    assert isinstance(got, CorpusError) and got.file == str(root / "a.md")
    assert got.message.startswith("a symbolic link owned by ")
    assert got.message.endswith(f"(to {root.parent / 'secret.md'}) is here: not followed")
    (root / "a.md").unlink()
    (root / "a.md").write_text("Alpha.\n", encoding="utf-8")
    followed = read_in_thread(root, follow=True)
    assert isinstance(followed, Corpus) and followed.text("a.md") == "canary\n"
    assert followed.follow_symlinks


def test_texts_read_again_never_open_a_link_swapped_in(root: Path) -> None:
    lean = Corpus.read(root, keep_text=False)
    (root / "a.md").rename(root.parent / "moved.md")  # the very file, behind a link
    (root / "a.md").symlink_to(root.parent / "moved.md")
    with pytest.raises(CorpusError, match="the document changed while") as caught:
        lean.text("a.md")
    assert caught.value.file == str(root / "a.md")
