"""Every input file is opened here: a regular file, sized by a stat before a byte is read.

A FIFO would block a plain `open` for good and `/dev/zero` never ends, so a file is opened
without blocking (O_NONBLOCK) and refused by what `fstat` says it is before any read. Line
files stream in pieces of at most MAX_LINE bytes, so no line, however long, is ever held
whole. Refusals go through each reader's own `Place` (labeler.core.typed), as every shared
bound does; a missing or unreadable file stays an OSError for the reader to word.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from labeler.core.files import nofollow
from labeler.core.typed import MAX_LINE, Place, Refusal, out_of_bounds, over_limit, sized

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def kind_of(mode: int) -> str:
    """What a mode that is not a regular file's says the file is (`a FIFO (named pipe)`)."""
    return _kind(mode)


@contextmanager
def open_regular(
    path: str | Path, limit: int, where: Place, *, follow: bool = True
) -> Iterator[BinaryIO]:
    """The open file, once fstat shows a regular file of at most `limit` bytes. `follow`
    False: a file of the project's own (a run folder's), where a link is another member's
    and is refused naming its owner, never followed (§20)."""
    fd = _open(Path(path), follow)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise out_of_bounds(where, f"is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise out_of_bounds(where, over_limit(info.st_size, limit))
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def _open(path: Path, follow: bool) -> int:
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    if follow:
        return os.open(path, flags)
    try:
        return os.open(path, flags | os.O_NOFOLLOW)
    except OSError as exc:
        st = nofollow.lstat(path) if exc.errno == errno.ELOOP else None
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise nofollow.refusal(path, st) from None
        raise


def read_bounded(path: str | Path, limit: int, where: Place, *, follow: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (a file that grows is cut off);
    `follow` as `open_regular` has it."""
    with open_regular(path, limit, where, follow=follow) as handle:
        # In pieces: one read(limit + 1) allocates the whole limit (256 MiB) up front.
        pieces: list[bytes] = []
        held = 0
        while held <= limit and (piece := handle.read(min(_PIECE, limit + 1 - held))):
            pieces.append(piece)
            held += len(piece)
        return sized(b"".join(pieces), limit, where)  # a file that grew is cut off


_PIECE = 1 << 20
"""Bytes read at a time."""


LinePlace = Callable[[int], Place]
"""The place of line N (1-based) of a file, for refusals that name the line."""


def bounded_lines(
    handle: BinaryIO,
    limit: int,
    where: LinePlace,
    *,
    line_limit: int = MAX_LINE,
    update: Callable[[bytes], object] | None = None,
) -> Iterator[tuple[int, str]]:
    """(line number, text without its `\\n`) of an open UTF-8 file, BOM dropped, streamed.

    A line over `line_limit` bytes is refused after reading `line_limit + 1` of them;
    `update` (a hash's) is handed every byte read, so one pass both hashes and parses."""
    offset = 0
    for number in range(1, 1 << 62):
        raw = handle.readline(line_limit + 1)
        if not raw:
            return
        if update is not None:
            update(raw)
        if len(raw) > line_limit and not raw.endswith(b"\n"):
            raise out_of_bounds(where(number), f"the line is longer than {line_limit:,} bytes")
        if offset + len(raw) > limit:
            raise out_of_bounds(where(number), f"the file grew past the limit of {limit:,} bytes")
        yield number, _decoded(raw, offset, where(number))
        offset += len(raw)


def _decoded(raw: bytes, offset: int, where: Place) -> str:
    bom = 3 if offset == 0 and raw.startswith(b"\xef\xbb\xbf") else 0
    try:
        return raw[bom:].removesuffix(b"\n").decode("utf-8")
    except UnicodeDecodeError as exc:
        at = offset + bom + exc.start
        detail = f"not valid UTF-8: {exc.reason} (byte {at:,} of the file)"
        raise where.refuse(Refusal("out of bounds", detail=detail, offset=at)) from None
