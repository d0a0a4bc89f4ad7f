"""Documents where library offsets go wrong, canonicalised as spanlab stores them.

NFD accents (composed by canonicalisation), CRLF line ends (turned into LF), ZWJ emoji
and flags (several code points per glyph), Japanese without spaces, boilerplate repeated
word for word, and runs of whitespace; `repeat` is one short string over and over.
"""

from __future__ import annotations

import unicodedata

from labeler.core.corpus.canonical import canonicalize

_BOILER = "Terms apply. See the policy for details.\n\n"
_RAW = {
    "nfd": unicodedata.normalize("NFD", "Café crème brûlée. Résumé naïve façade.\n\n") * 8
    + "Fin de la page.",
    "crlf": "Line one of the notice.\r\nLine two follows here.\r\n\r\n" * 10 + "Last line.",
    "emoji": "Family 👨‍👩‍👧‍👦 trip. Flags 🇫🇷🇯🇵 and thumbs 👍🏽 here.\n" * 10 + "End 🏳️‍🌈.",
    "japanese": "東京都は日本の首都です。人口は約千四百万人です。\n\n" * 8 + "以上。",
    "boiler": "".join(
        f"# Section {i}\n\n{_BOILER}Unique paragraph {i} with words.\n\n" for i in range(10)
    ),
    "spaces": "word   word\t\t  word\n\n\n\n   indented    text   here.    " * 12 + "end",
    "repeat": "ab " * 60 + "ab",
}

HARD_DOCS: dict[str, str] = {name: canonicalize(raw) for name, raw in _RAW.items()}
"""Document id -> canonical text."""
