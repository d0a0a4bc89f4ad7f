"""The agreement screen as a mode of the one app (issue 15): its own key (ctrl+o), palette
entry and help keys; `R` on the label screen goes there on the current query; each
screen's state survives the switch; it says why when it cannot open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from labeler.core.agreement import NO_DOUBLE
from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.agreement.screen import AgreementScreen
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.modes import BY_NAME
from tests.cli.test_cli import run
from tests.tui.agreement.test_agreement_screen import double
from tests.tui.conftest import BILLING, GIFTS, QUIET, record_notes


def shown(app: SpanlabApp) -> str | None:
    screen = app.screen
    assert isinstance(screen, AgreementScreen)
    return screen.current


def label_of(app: SpanlabApp) -> LabelScreen:
    screen = app.screen
    assert isinstance(screen, LabelScreen)
    return screen


async def test_label_to_agreement_and_back_keeps_both_screens_state(
    store: Store, corpus: Corpus
) -> None:
    double(store)
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "enter")  # q-0002, into the document
        label = label_of(app)
        label.view.go_to(40)
        await pilot.pause()
        await pilot.press("ctrl+o")
        assert app.mode_name == "agreement" and app.title == "spanlab agreement"
        assert shown(app) == "q-0001"  # least agreement first
        await pilot.press("down")
        assert shown(app) == "q-0003"
        await pilot.press("ctrl+l")
        assert label_of(app) is label
        assert label.current == "q-0002"
        assert (label.view.doc_id, label.view.cursor) == ("billing.md", 40)
        await pilot.press("ctrl+o")
        assert shown(app) == "q-0003"
        assert app.screen.query_one(OptionList).highlighted == 1
        await pilot.press("escape")  # back where the reviewer came from
        assert label_of(app) is label
        assert label.current == "q-0002"


async def test_r_opens_the_mode_on_the_current_query(store: Store, corpus: Corpus) -> None:
    double(store)
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "down", "R")  # q-0003
        assert app.mode_name == "agreement" and shown(app) == "q-0003"
        await pilot.press("ctrl+l", "up", "up", "R")  # q-0001: the mode is built already
        await pilot.pause()
        assert shown(app) == "q-0001"


async def test_r_on_a_query_that_does_not_wait_says_so(
    store: Store, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    double(store)
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET)
    notes = record_notes(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "R")  # q-0002 has one version only
        await pilot.pause()
        assert shown(app) == "q-0001"
        await pilot.press("down", "ctrl+l", "R")  # built: it stays on q-0003
        await pilot.pause()
        assert shown(app) == "q-0003"
        assert notes == ["q-0002 does not wait for adjudication."] * 2


async def test_without_double_annotation_it_says_why_and_stays(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = record_notes(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+o", "R")
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen) and app.mode_name == "label"
        assert notes == [NO_DOUBLE, NO_DOUBLE]


def test_without_a_store_it_cannot_open(corpus: Corpus) -> None:
    app = SpanlabApp(None, corpus, annotator="ann", screen="triage")
    assert BY_NAME["agreement"].missing(app) == BY_NAME["stats"].missing(app)
    assert "no label store" in str(BY_NAME["agreement"].missing(app))


async def test_palette_and_help_name_it(store: Store, corpus: Corpus) -> None:
    double(store)
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Agreement" in titles
        anywhere = dict(app.key_groups())["Anywhere"]
        assert any(getattr(b, "key", "") == "ctrl+o" for b in anywhere)
        await pilot.press("ctrl+o")
        groups = app.key_groups()
        assert groups[0][0] == "Agreement"
        assert "Agreement" not in [c.title for c in app.get_system_commands(app.screen)]


def test_spanlab_adjudicate_opens_the_app_on_it(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr("labeler.tui.launch.run_app", lambda *a, **kw: seen.update(kw))
    monkeypatch.chdir(tmp_path)
    toml = 'corpus = "corpus"\ndb = "labels.db"\n'
    (tmp_path / "spanlab.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus/billing.md").write_text(BILLING, encoding="utf-8")
    (tmp_path / "corpus/gifts.txt").write_text(GIFTS, encoding="utf-8")
    alone = run("adjudicate", "--annotator", "rita")
    assert alone.exit_code == 2 and NO_DOUBLE in alone.stderr.replace("\n", " ")
    assert seen == {}
    double(store)
    done = run("adjudicate", "--annotator", "rita")
    assert done.exit_code == 0, done.stderr
    assert (seen["screen"], seen["annotator"]) == ("agreement", "rita")
