"""spanlab.toml's `trim_spans` (issue 15): on by default, a selection's edge whitespace is
left out of the span it adds; `trim_spans = false` keeps the selection as drawn, from the
command line to the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label.screen import LabelScreen
from tests.cli.test_cli import initialised, run, workdir
from tests.tui.conftest import BILLING, QUIET

__all__ = ["workdir"]  # the fixture, used by name


@pytest.mark.parametrize(("trim", "edges"), [(True, (24, 59)), (False, (23, 60))])
async def test_the_setting_decides_whether_edge_whitespace_is_kept(
    store: Store, corpus: Corpus, trim: bool, edges: tuple[int, int]
) -> None:
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET, trim_spans=trim)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        screen.view.go_to(23)
        await pilot.pause()
        await pilot.press(*["shift+right"] * 37, "a")  # 23..60: " Cards … two days.\n"
    (span,) = store.query("q-0001").evidence
    assert (span.start, span.end) == edges
    assert span.quote == BILLING[edges[0] : edges[1]]
    assert (span.quote[0].isspace() and span.quote[-1] == "\n") is not trim


@pytest.mark.parametrize(("line", "trim"), [("", True), ("trim_spans = false\n", False)])
def test_spanlab_label_hands_the_setting_to_the_app(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, line: str, trim: bool
) -> None:
    initialised(workdir)
    toml = workdir / "spanlab.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + line, encoding="utf-8")
    seen: dict[str, Any] = {}
    monkeypatch.setattr("labeler.tui.launch.run_app", lambda *a, **kw: seen.update(kw))
    done = run("label", "--annotator", "ann")
    assert done.exit_code == 0, done.stderr
    assert seen["trim_spans"] is trim
