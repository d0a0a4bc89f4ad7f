"""The shape of a key registry: a key with its type, default and meaning, and a table of keys.

spanlab.toml's registry (labeler.core.project.keys) and the candidates file's
(evaluator.candidate_keys) both use it, so docs/gen_reference.py reads one shape.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeler.core.typed import Kind


@dataclass(frozen=True)
class Key:
    """One key of a file (or of one of its tables)."""

    name: str
    """The key as the file spells it."""
    kind: Kind
    """The TOML type it takes (`typed` checks it)."""
    default: str
    """Its default as the reference shows it: a value, `required` or `unset`."""
    meaning: str
    """One or two sentences for the reference."""


@dataclass(frozen=True)
class Table:
    """One table of a file and its keys."""

    heading: str
    """How the file writes the table (`[settings]`, `[[candidate]]`)."""
    about: str
    """What the table is for."""
    keys: tuple[Key, ...]
    """Its keys, in the order the reference lists them."""

    def types(self) -> dict[str, Kind]:
        return {k.name: k.kind for k in self.keys}

    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys)
