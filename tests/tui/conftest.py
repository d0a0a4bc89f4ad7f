"""A tiny two-document project for the app's Pilot and snapshot tests.

billing.md (114 code points):
  0..23  "Refunds take five days."      24..59  "Cards are credited within two days."
  60..91 "Shipping is free over 50 euros."  92..113 "Returns need a label."
gifts.txt (71): 0..24 "Gift cards never expire."  25..70 "A refund goes back to …"
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Boundary, Span, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.settings import Settings

BILLING = (
    "Refunds take five days. Cards are credited within two days.\n"
    "Shipping is free over 50 euros. Returns need a label.\n"
)
GIFTS = "Gift cards never expire. A refund goes back to the card you paid with.\n"
SESSION_START = datetime.now(UTC)
"""The tests' "now", frozen before any fixture writes: every row they stamp is of this day
or later, so "N today" counts them all, at any hour (no picture changes at midnight)."""
QUIET = Settings(cursor_blink=False, poll_interval=0.05, clock=lambda: SESSION_START)
"""No blinking (snapshots), a fast poll (two-annotator tests), a frozen clock."""


@pytest.fixture
def corpus() -> Corpus:
    return Corpus.from_texts({"billing.md": BILLING, "gifts.txt": GIFTS})


def seed(store: Store) -> None:
    """q-0001 unlabelled; q-0002 labelled by bob on the shipping sentence; q-0003 abstains."""
    store.add_query("How long do refunds take?", annotator="ann", slices=("refunds",))
    store.add_query(
        "Is shipping free?",
        annotator="bob",
        boundary=Boundary.CONTROL,
        status=Status.LABELLED,
        slices=("shipping",),
    )
    store.add_span(
        "q-0002", Span.from_text(BILLING, "billing.md", 60, 91), BILLING, annotator="bob"
    )
    store.add_query("Do gift cards earn interest?", annotator="ann", abstain=True)


@pytest.fixture
def store(tmp_path: Path, corpus: Corpus) -> Iterator[Store]:
    s = Store.open(tmp_path / "labels.db")
    s.bind(corpus.doc_hashes)
    seed(s)
    yield s
    s.close()


@pytest.fixture
def app(store: Store, corpus: Corpus) -> SpanlabApp:
    return SpanlabApp(store, corpus, annotator="ann", settings=QUIET)


def record_notes(app: App[None], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every message the app notifies from now on, in order (toasts are not read back)."""
    seen: list[str] = []
    show = app.notify

    def notify(message: str, **options: Any) -> None:
        seen.append(message)
        show(message, **options)

    monkeypatch.setattr(app, "notify", notify)
    return seen
