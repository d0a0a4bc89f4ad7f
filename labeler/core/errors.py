"""Domain errors that carry where the problem is.

Every bad input must be reported with the file, line, key or offset it concerns, so the
CLI can print one clear line and exit 2 without having written anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labeler.core.secrets import redact


@dataclass
class SpanlabError(Exception):
    """A problem with the user's input, located as precisely as we can."""

    message: str
    """What is wrong, in words a user acts on."""
    file: str | None = None
    """The file concerned, as the user named it."""
    line: int | None = None
    """1-based line number in `file`."""
    key: str | None = None
    """A key or JSON path inside `file` (`queries[3].evidence[0].start`)."""
    offset: int | None = None
    """A byte or code-point offset, as the message says."""
    hint: str | None = None
    """What to do next (`run spanlab review`)."""
    details: list[str] = field(default_factory=list)
    """Further lines (the documents that differ, say)."""

    def __post_init__(self) -> None:
        # Every message and hint passes the one redaction (§21): a URL's key is never shown,
        # whichever screen or file the text reaches (`str`, `.message`, a notification).
        self.message = redact(self.message)
        self.hint = None if self.hint is None else redact(self.hint)
        super().__init__(self.message)

    def location(self) -> str:
        parts: list[str] = []
        if self.file is not None:
            parts.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.key is not None:
            parts.append(f"key {self.key}")
        if self.offset is not None:
            parts.append(f"offset {self.offset}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        text = f"{where}: {self.message}" if where else self.message
        lines = [text, *(f"  {d}" for d in self.details)]
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return redact("\n".join(lines))  # a URL's key is never shown (§21)


class CorpusError(SpanlabError):
    """The corpus folder or one of its documents cannot be read as the spec requires."""


class LabelError(SpanlabError):
    """A query, span or label file is invalid."""


class StoreError(SpanlabError):
    """The label store refuses an operation (stale spans, wrong corpus, missing row)."""


class ConfigError(SpanlabError):
    """`spanlab.toml` or a candidates file is invalid."""


class UnsafeFile(SpanlabError):
    """A link, FIFO, device or folder where spanlab keeps a file of its own, or a folder
    that leads where no one who may configure it chose (§20): refused, never followed."""
