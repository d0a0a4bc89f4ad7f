"""The one place text from outside spanlab is made safe to show on a terminal (§13).

A question, a note, a name, a document or a server's message may hold C0/C1 controls, ESC
sequences (OSC 52 rewrites the clipboard, CSI 2J clears the screen), DEL, bidirectional
overrides or lone surrogates. Every renderer (the app, `show`, summaries, error messages)
passes such text through `shown` (visible escapes) or, where text is laid out in cells and
offsets must keep their columns, `masked` (one placeholder per code point).
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Bidirectional marks, embeddings, overrides and isolates: they reorder what follows."""
_OTHERS = f"\x0b-\x1f\x7f-\x9f{BIDI}\u2028\u2029\ud800-\udfff\ufffe\uffff"
_UNSAFE = re.compile(f"[\x00-\x1f{_OTHERS}]")
"""Every code point a terminal may act on instead of drawing (or cannot encode)."""
_UNSAFE_IN_LINES = re.compile(f"[\x00-\x08{_OTHERS}]")
"""The same but newline and tab."""
_LAYOUT = "\n\t"
"""Kept as they are where text is laid out in lines (`lines=True`)."""
PLACEHOLDER = "·"
"""What `masked` draws for an unsafe code point: one cell, so columns stay right."""


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: str, *, lines: bool = True) -> str:
    """`text` with each unsafe code point as a visible escape: `\\x1b` for a C0/C1
    control or DEL (`\\x` and two hex digits), `\\u202e` for a bidi control, a line or
    paragraph separator, a lone surrogate or the noncharacters U+FFFE/U+FFFF (`\\u` and
    four: what XML 1.0 cannot hold either). Newline and tab are kept
    when `lines` is true (text laid out in lines), escaped too when it is false (one row).
    Nothing else changes: plain text, emoji and other scripts pass as they are."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(
        lambda m: m.group() if lines and m.group() in _LAYOUT else _escape(m.group()), text
    )


def masked(text: str) -> str:
    """`text` with each unsafe code point but newline and tab replaced by PLACEHOLDER:
    the same length, so an offset into `text` is an offset into the result and a span or
    a ruler drawn by code point stays in its column."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group() in _LAYOUT else PLACEHOLDER, text)


def unsafe_at(text: str, *, lines: bool = False) -> int | None:
    """The offset of the first code point `shown` would escape (newline and tab too
    unless `lines`), or None: how readers refuse control characters in a question, a
    note (`lines=True`) or a name."""
    found = (_UNSAFE_IN_LINES if lines else _UNSAFE).search(text)
    return None if found is None else found.start()


def describe(text: str, offset: int) -> str:
    """`a control character (\\x1b)` for the code point at `offset`, for messages."""
    ch = text[offset]
    kind = "a bidirectional control" if ch in BIDI else "a control character"
    if "\ud800" <= ch <= "\udfff":
        kind = "a lone surrogate"
    return f"{kind} ({_escape(ch)})"


_MD_PUNCT = re.compile(r"([\\`*_\[\]<>|~&])")
"""What markdown may act on in running text: emphasis, code, links, HTML, tables."""


def markdown_text(text: str) -> str:
    """`text` for a markdown file (report, diff, job summary) as words, not markup: `shown`
    on one row (so a newline cannot end a table row), then every character markdown acts
    on backslash-escaped (`|` cannot split a cell, `[x](y)` is no link, `<b>` no HTML)."""
    return _MD_PUNCT.sub(r"\\\1", shown(text, lines=False))


def markdown_code(text: str) -> str:
    """`text` as a markdown code span that holds it whole, for a table cell: `shown` on
    one row, `|` escaped (GitHub splits cells on it even in code), and a fence of one more
    backtick than the longest run inside, so a backtick in `text` cannot close it."""
    safe = shown(text, lines=False).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", safe)), default=0) + 1)
    pad = " " if safe.startswith("`") or safe.endswith("`") else ""
    return f"{fence}{pad}{safe}{pad}{fence}"
