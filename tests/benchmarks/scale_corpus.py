"""A seeded corpus of prose and Markdown of any size, with a frozen label set over it.

The scale benchmark needs tens of megabytes that look like a team's docs — headings,
paragraphs, lists, tables, code — and are the same on every run, plus labelled queries
whose evidence is really there, so a run measures what a real one would.
"""

from __future__ import annotations

import random
from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import to_json, write_json
from labeler.core.values import Query, Span

SYLLABLES = [a + b for a in "kmnrstvbdfghjlpw" for b in "aeiouy"]

SHORT = ("the", "a", "of", "to", "and", "is", "in", "for", "on", "with", "by", "may", "must")


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    """Made-up words of 1–4 syllables, plus the short words prose is made of."""
    words = {"".join(rng.choices(SYLLABLES, k=rng.randint(1, 4))) for _ in range(size * 2)}
    return [*SHORT, *sorted(words)[:size]]


class Writer:
    """Sentences and Markdown blocks from a Zipf-weighted vocabulary."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng)
        self.weights = [1.0 / (rank + 1) for rank in range(len(self.words))]

    def sentence(self) -> str:
        words = self.rng.choices(self.words, self.weights, k=self.rng.randint(6, 28))
        return " ".join(words).capitalize() + self.rng.choice("......?!")

    def block(self) -> str:
        rng = self.rng
        kind = rng.choices(("para", "list", "table", "code", "heading"), (10, 2, 1, 1, 2))[0]
        if kind == "heading":
            return "#" * rng.randint(2, 4) + " " + " ".join(rng.choices(self.words, k=3)).title()
        if kind == "list":
            return "\n".join(f"- {self.sentence()}" for _ in range(rng.randint(2, 7)))
        if kind == "table":
            rows = [f"| {rng.choice(self.words)} | {rng.randint(1, 999)} | {self.sentence()} |"
                    for _ in range(rng.randint(2, 12))]  # fmt: skip
            return "\n".join(["| name | value | note |", "|---|---:|---|", *rows])
        if kind == "code":
            n = rng.randint(3, 20)
            lines = [f"    {rng.choice(self.words)}_{i} = run({i})" for i in range(n)]
            return "```python\n" + "\n".join(lines) + "\n```"
        return " ".join(self.sentence() for _ in range(rng.randint(2, 8)))

    def document(self) -> str:
        parts = ["# " + " ".join(self.rng.choices(self.words, k=4)).title()]
        target, size = self.rng.randint(4_000, 60_000), 0
        while size < target:
            parts.append(self.block())
            size += len(parts[-1]) + 2
        return "\n\n".join(parts) + "\n"


def write_corpus(folder: Path, megabytes: float, seed: int = 20261201) -> int:
    """Documents under `folder` until `megabytes` are written; how many documents."""
    writer, written, i = Writer(seed), 0, 0
    folder.mkdir(parents=True, exist_ok=True)
    while written < megabytes * 1_000_000:
        text = writer.document()
        sub = folder / f"part-{i // 100:03d}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc-{i:05d}.md").write_text(text, encoding="utf-8")
        written, i = written + len(text.encode("utf-8")), i + 1
    return i


def write_labels(corpus: Corpus, out: Path, queries: int = 60, seed: int = 7) -> None:
    """A frozen label set: each query quotes a sentence of a document as its evidence."""
    rng, found = random.Random(seed), list[Query]()
    docs = sorted(corpus.documents)
    while len(found) < queries:
        doc = rng.choice(docs)
        text = corpus.text(doc)
        start = text.find(". ", rng.randrange(len(text))) + 2
        end = text.find(".", start) + 1
        if start < 2 or end <= start or "\n" in text[start:end] or end - start < 30:
            continue
        quote = text[start:end]
        words = quote.split()
        span = Span.from_text(text, doc, start, end)
        found.append(Query(f"q-{len(found) + 1:04d}", " ".join(words[:8]), evidence=(span,)))
    write_json(to_json(found, corpus), out)
