"""The app says at start when the store refuses edits (§15), not only at the first edit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import READ_ONLY, SpanlabApp
from tests.tui.conftest import QUIET


def notices(app: SpanlabApp, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(title, message) of every notification from now on."""
    seen: list[tuple[str, str]] = []
    show = app.notify

    def notify(message: str, **options: Any) -> None:
        seen.append((str(options.get("title", "")), message))
        show(message, **options)

    monkeypatch.setattr(app, "notify", notify)
    return seen


async def test_a_read_only_store_is_announced_at_start(
    store: Store, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reading = Store.open(tmp_path / "labels.db", create=False, read_only=True)
    app = SpanlabApp(reading, corpus, annotator="ann", settings=QUIET)
    seen = notices(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert seen == [(READ_ONLY, "the label store is open read-only")]
    reading.close()


async def test_a_writable_store_opens_without_a_notice(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = notices(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert seen == []
