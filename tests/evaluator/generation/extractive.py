"""The loopback server's extractive answerer: a deterministic stand-in for a model that
reads its sources, so candidates' answers differ as their contexts do.

It reads the prompt as spanlab's templates lay it out: sources are paragraphs opening
`[n] (doc)`, the question is the line after `Question:`, and the abstention phrase is the
quoted text after `reply exactly:`. It answers with the TAKE sentences sharing most words
(of three letters or more, STOP words left out) with the question, each cited `[n]`, in
order of score then source; with none sharing MIN_SHARED words, the abstention phrase.
"""

from __future__ import annotations

import re

TAKE = 2
"""Sentences an answer holds at most."""
MIN_SHARED = 2
"""Least question words a sentence shares to be said."""
_STOP_WORDS = (
    "the and for are was what how does with that this from which who when where why can any "
    "not its his her our their you your has have had did into per than then them they"
)
STOP = frozenset(_STOP_WORDS.split())
_SOURCE = re.compile(r"^\[(\d+)\] \([^)\n]*\) ?", re.MULTILINE)
_QUESTION = re.compile(r"^Question: ?(.*)$", re.MULTILINE)
_PHRASE = re.compile(r'reply exactly: "([^"\n]+)"')
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"\w{3,}")


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if w not in STOP}


def sources(prompt: str) -> list[tuple[int, str]]:
    """(number, text) of each source, in order; the text ends where the next source or
    the question begins."""
    found = list(_SOURCE.finditer(prompt))
    ask = _QUESTION.search(prompt)
    end_all = ask.start() if ask else len(prompt)
    out = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else max(end_all, m.end())
        out.append((int(m.group(1)), prompt[m.end() : end]))
    return out


def answer(prompt: str) -> str:
    ask, phrase = _QUESTION.search(prompt), _PHRASE.search(prompt)
    wanted = words(ask.group(1)) if ask else set()
    scored = [
        (len(wanted & words(s)), -n, -i, s.strip(), n)
        for n, text in sources(prompt)
        for i, s in enumerate(_SENTENCE.split(text))
        if s.strip()
    ]
    best = sorted((x for x in scored if x[0] >= MIN_SHARED), reverse=True)[:TAKE]
    if not best:
        return phrase.group(1) if phrase else "I don't know."
    return " ".join(f"{s.rstrip('.')} [{n}]." for *_, s, n in best)
