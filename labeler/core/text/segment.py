"""Where one unit (a paragraph, a quote, a code comment, a table cell) breaks into sentences.

The candidate breaks are ours: a terminator, its closing quotes or brackets, then white
space. Where every candidate is plain (a word of four letters or more, then a capital), they
all stand; otherwise pysbd (MIT, a rule-based segmenter that knows abbreviations such as
"e.g.", "Dr.", "U.S." and quoted questions) decides which stand. pysbd costs about 20 s a
MB, so it reads only such units, once each (cached), with its white space folded to single
spaces so a hard wrap is no break; offsets stay ours, mapped back from that folded copy.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pysbd

_GAP = re.compile(r"[.!?][\"')\]\u201d\u2019]*\s+")
"""A candidate break: a terminator, its closing quotes or brackets, then white space."""
_PLAIN = re.compile(r"[\"'(\[\u201c\u2018]*([^\s.]{2,}|\d)[.!?]\s+[^\s\w]*[\d\W]*[^\W\d_]?")
"""A break no segmenter doubts: a number, or a word of two characters or more without a period, the
terminator, white space, then no lower-case letter (unless the word is a known
abbreviation)."""
BEFORE_NUMBER = frozenset(
    {"vol", "vols", "no", "nos", "p", "pp", "fig", "figs", "sec", "ch", "art", "para"}
    | {"eq", "ref", "tab", "nr", "op", "ed", "rev", "pt", "ex", "app"}
)
"""Abbreviations that a number follows ("Vol. 3", "p. 14"): never a break before it (pysbd
breaks after "Vol.")."""
_WORD_BEFORE = re.compile(r"(\w+)\.$")
_NUMBERING = re.compile(r"\s*\d{1,3}(?:\.\d{1,3})*")
"""A unit that opens with its number ("1. Who can ask", "4.2 Fees"): no sentence of its own."""
GROUP = 6
"""Doubtful breaks pysbd reads at once."""


def breaks(unit: str, *, careful: bool = True) -> tuple[tuple[int, int], ...]:
    """Sentences of one unit as offsets into it, white space at their edges left out (a
    unit's interior markers already blanked to spaces). Not `careful` (a whole corpus
    indexed at once), a doubtful break is decided by the abbreviation list alone."""
    return _breaks(unit, careful)


@lru_cache(maxsize=1 << 14)
def _breaks(unit: str, careful: bool) -> tuple[tuple[int, int], ...]:
    gaps = list(_GAP.finditer(unit))
    keep = (_kept if careful else _guessed)(unit, gaps) if gaps else set()
    out: list[tuple[int, int]] = []
    begin = 0
    for n, gap in enumerate(gaps):
        if n in keep:
            out.append((begin, _end(gap)))
            begin = gap.end()
    end = len(unit.rstrip())
    if begin < end:
        out.append((begin, end))
    return tuple(out)


def _kept(unit: str, gaps: list[re.Match[str]]) -> set[int]:
    """Which candidate breaks stand: the plain ones, and the doubtful ones pysbd makes,
    read a few sentences at a time (pysbd grows faster than its text: 43 s for one
    118 kB paragraph)."""
    verdicts = [_verdict(unit, g) for g in gaps]
    keep = {n for n, v in enumerate(verdicts) if v}
    doubtful = [n for n, v in enumerate(verdicts) if v is None]
    for group in _groups(doubtful):
        first, last = group[0], group[-1]
        lo = gaps[first - 1].end() if first else 0
        hi = _end(gaps[last + 1]) if last + 1 < len(gaps) else len(unit)
        ends = {lo + e for e in _pysbd_ends(unit[lo:hi])}
        keep.update(
            n for n in group if _ends_at(gaps[n], ends) and not _before_number(unit, gaps[n])
        )
    return keep


def _ends_at(gap: re.Match[str], ends: set[int]) -> bool:
    """pysbd ends a sentence at this break: after its closing marks, or at its terminator
    (a quote opened before the text pysbd read: it puts the closing `"` in the next one)."""
    return any(at in ends for at in range(gap.start() + 1, _end(gap) + 1))


def _guessed(unit: str, gaps: list[re.Match[str]]) -> set[int]:
    """The breaks that stand without pysbd: the plain ones, and the doubtful ones after a
    word that is no abbreviation, no initial and holds no period."""
    keep = set()
    for n, gap in enumerate(gaps):
        verdict = _verdict(unit, gap)
        if verdict is None:
            word = unit[_word_start(unit, gap.start()) : gap.start()].strip("\"'([\u201c\u2018")
            verdict = (
                (len(word) > 1 or word.isdigit())
                and "." not in word
                and word.casefold() not in _abbreviations()
            )
        if verdict:
            keep.add(n)
    return keep


def _verdict(unit: str, gap: re.Match[str]) -> bool | None:
    """A break (True), none (False: a lower-case word follows, as after "e.g." or "P."), or
    doubtful (None: an abbreviation, a closing quote or bracket, an initial; pysbd says)."""
    after = unit[gap.end() : gap.end() + 1]
    if after.islower() or _NUMBERING.fullmatch(unit, 0, gap.start()):
        return False  # "e.g. the", or a numbered heading's "1." ("## 1. Who can ask")
    found = _PLAIN.match(unit, _word_start(unit, gap.start()), gap.end() + 1)
    if found is None or found.end() != gap.end() + len(after):
        return None
    return None if found.group(1).casefold() in _abbreviations() else True


@lru_cache(maxsize=1)
def _abbreviations() -> frozenset[str]:
    """pysbd's English abbreviations and ours before numbers, folded."""
    from pysbd.lang.english import English

    return frozenset(a.casefold() for a in English.Abbreviation.ABBREVIATIONS) | BEFORE_NUMBER


def _end(gap: re.Match[str]) -> int:
    """Where the sentence a candidate break closes ends (its closing marks kept)."""
    return gap.start() + len(gap.group().rstrip())


def _groups(doubtful: list[int]) -> list[list[int]]:
    """Runs of consecutive doubtful breaks, GROUP at most: each read by pysbd with the
    sentences either side of it."""
    groups: list[list[int]] = []
    for n in doubtful:
        if groups and groups[-1][-1] == n - 1 and len(groups[-1]) < GROUP:
            groups[-1].append(n)
        else:
            groups.append([n])
    return groups


def _word_start(unit: str, at: int) -> int:
    """Where the word ending at `at` starts."""
    while at > 0 and not unit[at - 1].isspace():
        at -= 1
    return at


def _before_number(unit: str, gap: re.Match[str]) -> bool:
    """An abbreviation a number follows: "Vol. 3", "p. 14"."""
    word = _WORD_BEFORE.search(unit, 0, gap.start() + 1)
    nxt = unit[gap.end() : gap.end() + 1]
    return word is not None and word.group(1).casefold() in BEFORE_NUMBER and nxt.isdigit()


def _pysbd_ends(unit: str) -> set[int]:
    """Where pysbd ends sentences, as offsets into `unit` (one past each sentence's last
    non-space character)."""
    folded, where = _fold(unit)
    ends: set[int] = set()
    at = 0
    for piece in _segmenter().segment(folded):
        piece = piece.strip()
        found = folded.find(piece, at) if piece else -1
        if found < 0:
            continue  # pysbd changed the text (it should not with clean=False): skip it
        at = found + len(piece)
        ends.add(where[at - 1] + 1)
    return ends


def _fold(unit: str) -> tuple[str, list[int]]:
    """`unit` with each white space run as one space, and each character's offset in it."""
    chars: list[str] = []
    where: list[int] = []
    for n, c in enumerate(unit):
        if c.isspace():
            if chars and chars[-1] == " ":
                continue
            c = " "
        chars.append(c)
        where.append(n)
    return "".join(chars), where


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    import pysbd  # loads its rules on the first doubtful unit, not with the app

    return pysbd.Segmenter(language="en", clean=False)
