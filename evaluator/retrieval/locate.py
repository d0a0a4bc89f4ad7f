"""Where a framework's text lies in a document (§24): exactly, else blind to whitespace.

Frameworks hand back text joined differently from the corpus: LlamaIndex's sentence window
re-joins sentences with a space (`"… Kingdom.  Orders"`, `"\\n\\n ## Shipping"`), others
collapse whitespace runs. The one stated normalisation, WHITESPACE_BLIND, drops every
whitespace character from both the text and the document and looks for the rest; a match
found so must still be the only one, and its place runs from its first to its last
non-whitespace character. The exact search always goes first.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

WHITESPACE_BLIND = "whitespace-blind/1"
"""The normalisation's name, as run.json and the terminal state it."""


@dataclass(frozen=True)
class Located:
    """Where the text lies, and how it was found."""

    start: int
    """First code point of the match."""
    end: int
    """One past its last code point."""
    normalised: bool
    """True when found only with whitespace ignored (its ends then lie on non-whitespace)."""


class Ambiguous(ValueError):
    """The text occurs more than once; `at` holds the first two places."""

    def __init__(self, at: tuple[int, int], normalised: bool) -> None:
        super().__init__(f"found at {at[0]} and {at[1]}")
        self.at = at
        self.normalised = normalised


def locate(text: str, needle: str) -> Located | None:
    """The one place `needle` lies in `text`: exactly, else whitespace-blind; None when
    nowhere; Ambiguous when twice under the rule that found it."""
    if not needle:
        return None
    first = text.find(needle)
    if first != -1:
        again = text.find(needle, first + 1)
        if again != -1:
            raise Ambiguous((first, again), normalised=False)
        return Located(first, first + len(needle), normalised=False)
    bare = "".join(ch for ch in needle if not ch.isspace())
    if not bare:
        return None
    squeezed, places = _squeezed(text)
    first = squeezed.find(bare)
    if first == -1:
        return None
    again = squeezed.find(bare, first + 1)
    if again != -1:
        raise Ambiguous((places[first], places[again]), normalised=True)
    return Located(places[first], places[first + len(bare) - 1] + 1, normalised=True)


def trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """`[start, end)` without the whitespace at its ends (as a normalised match lies)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@lru_cache(maxsize=8)
def _squeezed(text: str) -> tuple[str, tuple[int, ...]]:
    """`text` without whitespace, and where each character left came from."""
    places = tuple(i for i, ch in enumerate(text) if not ch.isspace())
    return "".join(text[i] for i in places), places
