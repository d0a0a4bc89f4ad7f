"""The seeds' corpora, rebuilt as fixtures from issue 30's description (the seeds' own
harnesses are not in this repository).

Seed 002: a 502-character shipping page cut at 80 characters with overlap 0 and 24 (7 and 9
chunks, §5), where "customs clearance" sits 88 characters before its "9 dollars". Seed 001:
a page where a cut at offset 160 falls inside "R|efunds", scored by the lexical retriever.
"""

from __future__ import annotations

import json
from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import to_json
from labeler.core.values import Query, Span

SHIPPING = (
    "# Shipping\n\n"
    "Orders placed before noon ship the same day from our warehouse in Rotterdam.\n"
    "Customs clearance for parcels leaving the EU is handled by our own agent; the charge is "
    "9 dollars a parcel.\n"
    "Tracking links arrive by email once the carrier scans the parcel.\n"
    "Standard delivery takes three to five working days within the EU.\n"
    "Express delivery takes one working day and costs 12 euros.\n"
    "Lost parcels are replaced free of charge after ten working days.\n"
)
SHIPPING += "Questions? Write to the shipping desk.".ljust(502 - len(SHIPPING) - 1, ".") + "\n"

SEED_002_CANDIDATES = """\
[settings]
baseline = "chars80-ov0"
k = 1
depth = 10
retriever = "lexical"

[[candidate]]
name = "chars80-ov0"
splitter = "chars"
size = 80
overlap = 0

[[candidate]]
name = "chars80-ov24"
splitter = "chars"
size = 80
overlap = 24
"""

RETURNS = (
    "# Returns\n\n"
    "You may send an item back in 30 days of delivery. Print the label from your "
    "account, pack the item in its box and drop it at any local post office. "
    "Refunds take 14 days. They go to the card you paid with.\n\n"
    "Items marked final sale cannot be sent back. Opened software and gift cards are "
    "final sale as well.\n"
)

SEED_001_CANDIDATES = """\
[settings]
baseline = "chars200"
k = 1
depth = 10
retriever = "lexical"

[[candidate]]
name = "chars200"
splitter = "chars"
size = 200
overlap = 0

[[candidate]]
name = "chars160"
splitter = "chars"
size = 160
overlap = 0
"""


def span(text: str, doc: str, quote: str) -> Span:
    start = text.index(quote)
    return Span.from_text(text, doc, start, start + len(quote))


def seed_002_queries() -> list[Query]:
    doc, t = "shipping.md", SHIPPING
    return [
        Query("customs", "How much does customs clearance cost?",
              evidence=(span(t, doc, "9 dollars"),)),
        Query("noon", "When do orders placed before noon ship?",
              evidence=(span(t, doc, "ship the same day"),)),
        Query("standard", "How long does standard delivery take?",
              evidence=(span(t, doc, "three to five working days"),)),
        Query("lost", "What happens to lost parcels?",
              evidence=(span(t, doc, "replaced free of charge after ten working days"),)),
    ]  # fmt: skip


def seed_001_queries() -> list[Query]:
    doc, t = "returns.md", RETURNS
    return [
        Query("refunds", "Refunds timeframe?", evidence=(span(t, doc, "Refunds take 14 days."),)),
        Query("final", "Which items are final sale?",
              evidence=(span(t, doc, "Opened software and gift cards are final sale"),)),
    ]  # fmt: skip


def write_seed(folder: Path, doc: str, text: str, candidates: str, queries: list[Query]) -> Path:
    """A project folder: corpus/DOC, candidates.toml, labels.json (frozen); returns it."""
    (folder / "corpus").mkdir(parents=True)
    (folder / "corpus" / doc).write_text(text, encoding="utf-8")
    (folder / "candidates.toml").write_text(candidates, encoding="utf-8")
    corpus = Corpus.read(folder / "corpus")
    data = to_json(queries, corpus)
    (folder / "labels.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def seed_002(folder: Path) -> Path:
    return write_seed(folder, "shipping.md", SHIPPING, SEED_002_CANDIDATES, seed_002_queries())


def seed_001(folder: Path) -> Path:
    return write_seed(folder, "returns.md", RETURNS, SEED_001_CANDIDATES, seed_001_queries())
