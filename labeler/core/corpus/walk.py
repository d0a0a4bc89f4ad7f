"""Listing a corpus folder (design §2, §13): which entries are documents, and which are not read.

The walk decides everything about the file system (hidden entries, symlinks, loops, FIFOs)
so that reading a document never meets a surprise: a link that leads outside the folder
is refused unless the user asked to follow links, and every entry passed over is named.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from labeler.core.errors import CorpusError


def shown(path: str) -> str:
    """A file-system path as it can be printed: bad bytes as `\\xNN`, controls escaped."""
    try:
        text = os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeError:
        text = path
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


@dataclass
class Listing:
    """What a walk found below the corpus folder."""

    files: list[tuple[str, Path]] = field(default_factory=list)
    """(relative POSIX path, path to read) of every regular file that may be a document."""
    passed_over: list[str] = field(default_factory=list)
    """Entries not read, each with why (`linkdir (symlinked folder, not followed)`)."""


def _inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


@dataclass
class _Walk:
    """One walk: the corpus folder's real path, whether links are followed, folders seen."""

    root: str
    """The corpus folder, symlinks resolved."""
    follow: bool
    """Follow links wherever they lead (`--follow-symlinks`)."""
    out: Listing = field(default_factory=Listing)
    """What has been found so far."""
    seen: set[str] = field(default_factory=set)
    """Real paths of folders entered, so a link loop is entered once."""

    def folder(self, path: str, rel: str) -> None:
        self.seen.add(os.path.realpath(path))
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as exc:
            raise CorpusError(f"cannot list the folder: {exc.strerror}", file=shown(path)) from None
        for entry in entries:
            if not entry.name.startswith("."):
                self.entry(entry, f"{rel}{entry.name}")

    def entry(self, entry: os.DirEntry[str], rel: str) -> None:
        if entry.is_symlink():
            self.link(entry.path, rel)
        elif entry.is_dir(follow_symlinks=False):
            self.folder(entry.path, rel + "/")
        elif entry.is_file(follow_symlinks=False):
            self.out.files.append((rel, Path(entry.path)))
        else:
            self.out.passed_over.append(f"{shown(rel)} (not a regular file)")

    def link(self, path: str, rel: str) -> None:
        target = os.path.realpath(path)
        if not os.path.exists(target):
            self.out.passed_over.append(f"{shown(rel)} (dangling link, or a link loop)")
        elif os.path.isdir(target):
            self.linked_folder(path, rel, target)
        elif not self.follow and not _inside(target, self.root):
            raise CorpusError(
                f"a symlink to {shown(target)}, outside the corpus folder",
                file=shown(path),
                hint="remove the link, or run `spanlab init CORPUS --follow-symlinks` to read "
                "what links point to",
            )
        elif os.path.isfile(target):  # not following: the target is read, never the link
            self.out.files.append((rel, Path(path if self.follow else target)))
        else:
            self.out.passed_over.append(f"{shown(rel)} (links to something not a regular file)")

    def linked_folder(self, path: str, rel: str, target: str) -> None:
        if not self.follow:
            self.out.passed_over.append(
                f"{shown(rel)} (symlinked folder, not followed; --follow-symlinks reads it)"
            )
        elif target in self.seen:
            self.out.passed_over.append(f"{shown(rel)} (symlinked folder already read)")
        else:
            self.folder(path, rel + "/")


def walk(root: Path, *, follow_symlinks: bool = False) -> Listing:
    """Every regular file below `root` (hidden entries left out), and what was passed over."""
    walker = _Walk(os.path.realpath(root), follow_symlinks)
    walker.folder(str(root), "")
    return walker.out
