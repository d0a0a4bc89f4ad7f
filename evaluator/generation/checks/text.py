"""The one normalisation every check compares text by, and the citation pattern.

normal(t) = NFKC, case-folded, every run of characters that are not letters or digits
made one space, trimmed: "Thirty-day  Notice." and "thirty day notice" are equal.
"""

from __future__ import annotations

import re
import unicodedata

CITATION = re.compile(r"\[(\d{1,6}(?:\s*[,;]\s*\d{1,6})*)\]")
"""A citation as answers write it: `[2]`, `[1, 3]`, `[1;3]` (each number a source)."""
_NOT_WORD = re.compile(r"[\W_]+")


def normal(text: str) -> str:
    """The text as checks compare it (the module's rule)."""
    return _NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def without_citations(text: str) -> str:
    """The answer with its citations blanked (so `[3]` is not the number 3)."""
    return CITATION.sub(" ", text)


def contains(haystack: str, needle: str) -> bool:
    """`needle` in `haystack` on whole words, both already `normal`."""
    return bool(needle) and f" {needle} " in f" {haystack} "
