"""Pilot tests: a reviewer walks from the run to a lost query and reads what the run says.

Every expectation comes from the hand-worked run in conftest.py: c40 loses q-0002
(crowded, critical) and q-0001 (cut), and gains q-0003.
"""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Static, TabbedContent

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError, StoreError
from labeler.core.labels import labelset
from labeler.core.store import Store
from labeler.core.values import Query, Span
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.launch import run_app
from labeler.tui.settings import Field
from labeler.tui.triage import QueryScreen, TriageScreen
from labeler.tui.triage.widgets import ChangeList, RunList
from tests.tui.triage.conftest import DOC_A, LATEST, OLDER, Project, triage_app


def text(screen: TriageScreen | QueryScreen, selector: str) -> str:
    shown = screen.query_one(selector, Static).content
    return shown.plain if isinstance(shown, Content) else str(shown)


def lines(screen: TriageScreen | QueryScreen, selector: str) -> list[str]:
    return [line.rstrip() for line in text(screen, selector).split("\n")]


def triage(pilot: Pilot[None]) -> TriageScreen:
    assert isinstance(pilot.app.screen, TriageScreen)
    return pilot.app.screen


async def open_query(pilot: Pilot[None], downs: int) -> QueryScreen:
    """From the summary: the queries tab, `downs` rows down, enter, wait for the detail."""
    await pilot.press("2", *["down"] * downs, "enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, QueryScreen)
    return screen


async def test_the_latest_run_opens_on_its_summary(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        assert screen.run is not None and screen.run.id == LATEST
        assert screen.candidate == "c40"
        assert text(screen, "#triage-head") == (
            f"{LATEST} run FAIL · c40 FAIL vs c40-ov20\n"
            # Issue 40: gained and lost on both bases, each named (the gates count at k);
            # issue 29: a verdict that differs at the budget is flagged beside them.
            "▲1 ▼2 at k = 1 · ▲1 ▼1 at budget 19 (flag: PASS at budget 19)\n"
            "k 1 · depth 3 · match chunk (also union) · coverage ≥ 0.8 · retriever lexical · "
            "candidates candidates.toml · embedding none (lexical) · "
            # Issue 29: every header names the context budget and what decides.
            "budget 19 tokens (default) · decides k (sizes differ 2%)"
        )
        # The tmux trial at 80 columns (issue 45): the verdicts and both bases' counts were
        # cut ("▲8 ▼15 at …"); each has a line of its own, whole within 80 columns.
        head = screen.query_one("#triage-head", Static)
        assert head.size.height == 3
        assert [cell_len(line) for line in lines(screen, "#triage-head")[:2]] == [54, 61]
        assert head.size.width - 2 >= 61
        metrics = lines(screen, "#metrics")
        assert metrics[1] == "recall@k              0.667       0.333   -0.333 ✗"
        assert metrics[2] == "hit@k                 0.667       0.333   -0.333 ✗"
        assert metrics[14] == "chunks                    8           5       -3"
        assert lines(screen, "#significance")[-1] == (
            "1 gained / 2 lost: too small to be decisive (3 answerable queries < 30)"
        )
        assert lines(screen, "#gates") == ["gates at k = 1", "✗ lost 2 ≤1", "✗ critical lost 1 ≤0"]


async def test_losses_list_critical_first_and_the_cut_query_shows_both_cut_sets(
    app: SpanlabApp,
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        changes = triage(pilot).query_one(ChangeList)
        assert [changes.get_option_at_index(i).id for i in range(changes.option_count)] == [
            "q-0002", "q-0001", "q-0003",
        ]  # fmt: skip
        screen = await open_query(pilot, downs=1)
        assert screen.query_id == "q-0001"
        assert lines(screen, "#q-head") == [
            "q-0001 lost (cut) · heading-paragraph · billing · 2/3",
            "“bbpp bbqq bbrr bbss ccpp ccqq ccrr ccss”",
        ]
        assert lines(screen, "#q-fates-text") == [
            "e1 a.md 20..59 (39 ch)",
            "  ▌ c40-ov20: hit rank 1 ≤ k=1, chunk 20..60",
            "  ┊ c40: CUT no chunk holds ≥80% of it (best 0..40 covers 51%)",
            # plan's words (§17): a window [a, a + 40) holds 32 of its 39 characters when
            # 12 ≤ a ≤ 27, which every step of 27 or less gives: overlap ≥ 13.
            '  c40: cut at "rr bbss |ccpp ccq" at 40; overlap 0 cannot hold it: overlap ≥ 13 at '
            "this size (40 chars) holds it where it sits",
        ]
        blocks = [DOC_A[i : i + 20] for i in range(0, 160, 20)]
        marks = ["▌┊", "▌", "▌┊", "▌", "▌┊", "▌", "▌┊", "▌"]
        drawn = "".join(m + b for m, b in zip(marks, blocks, strict=True)) + "▌┊"
        assert lines(screen, "#q-boundary-text") == ["── a.md 0..160", drawn.rstrip()]
        assert lines(screen, "#q-base-text") == [
            "▌ c40-ov20 · rank score chunk ev",
            "  1  1.000 a 20..60              e1",
        ]
        assert lines(screen, "#q-cand-text") == [
            "┊ c40 · rank score chunk ev",
            "  1  0.500 a 0..40               e1~51%",
            "  — e1: cut, no chunk holds it",
        ]


async def test_a_crowded_loss_shows_its_match_below_k(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await open_query(pilot, downs=0)
        assert screen.query_id == "q-0002"
        assert lines(screen, "#q-fates-text")[2] == (
            "  ┊ c40: CROWDED first match at rank 2 > k=1, chunk 80..120"
        )
        assert lines(screen, "#q-cand-text") == [
            "┊ c40 · rank score chunk ev",
            "  1  1.000 b 0..24",
            "┄┄┄ below k=1 ┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄",
            "  2  0.800 a 80..120             e1",
        ]


async def test_n_and_p_walk_the_listed_queries_and_escape_goes_back(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await open_query(pilot, downs=0)
        await pilot.press("n")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert lines(screen, "#q-head")[0] == (
            "q-0001 lost (cut) · heading-paragraph · billing · 2/3"
        )
        await pilot.press("n", "n")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert (screen.query_id, lines(screen, "#q-head")[0]) == (
            "q-0003", "q-0003 gained · control · billing · 3/3"
        )  # fmt: skip
        await pilot.press("p", "escape")
        await pilot.pause()
        assert triage(pilot).query_one(ChangeList).has_focus


async def test_the_filter_narrows_the_list_by_slice_pattern_and_document(
    app: SpanlabApp,
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        changes = screen.query_one(ChangeList)
        await pilot.press("slash", *"slice:critical")
        assert [r.query for r in screen.rows] == ["q-0002"]
        assert text(screen, "#change-count").startswith("1 lost, 0 gained (of 3)")
        await pilot.press(*["backspace"] * len("slice:critical"), *"pattern:co")
        assert text(screen, "#change-count").startswith("pattern:co matches 3 of:")
        await pilot.press(*"nt")
        assert [r.query for r in screen.rows] == ["q-0003"]
        await pilot.press(*["backspace"] * len("pattern:cont"), *"doc:b.md")
        assert changes.option_count == 0
        await pilot.press(*["backspace"] * len("b.md"), *"a.md", "enter")
        assert (changes.option_count, changes.has_focus) == (3, True)


async def test_e_opens_the_label_screen_on_the_query_and_ctrl_b_comes_back(
    labelling_app: SpanlabApp,
) -> None:
    async with labelling_app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_query(pilot, downs=1)
        await pilot.press("e")
        await pilot.pause()
        label = pilot.app.screen
        assert isinstance(label, LabelScreen)
        assert label.current == "q-0001"
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert isinstance(pilot.app.screen, QueryScreen)


async def test_without_a_label_store_e_stays_on_the_query(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_query(pilot, downs=1)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(pilot.app.screen, QueryScreen)


async def test_an_older_run_opens_from_the_runs_tab(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        runs = triage(pilot).query_one(RunList)
        assert [runs.get_option_at_index(i).id for i in range(2)] == [LATEST, OLDER]
        assert runs.current_id == LATEST
        await pilot.press("down")
        await pilot.pause()
        # Issue 22: the highlighted run's settings, under the list.
        assert text(triage(pilot), "#run-settings").startswith(
            f"{OLDER}  k 1 · depth 3 · match chunk"
        )
        await pilot.press("enter")
        await pilot.pause()
        screen = triage(pilot)
        assert screen.run is not None and screen.run.id == OLDER
        assert text(screen, "#triage-head").startswith(f"{OLDER} run FAIL")
        assert screen.query_one(TabbedContent).active == "summary"


async def test_a_run_made_on_another_corpus_says_so_on_the_query(project: Project) -> None:
    other = Corpus.from_texts({"a.md": DOC_A.upper(), "b.md": "decoy"})
    app = triage_app(project)
    app.corpus = other
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await open_query(pilot, downs=1)
        assert text(screen, "#q-fates-text").startswith(f"run {LATEST} was made on corpus sha256:")
        assert text(screen, "#q-boundary-text").startswith("no boundary view: the run was made")
        for pane in ("#q-base-text", "#q-cand-text"):
            ranked = lines(screen, pane)
            assert re.match(r"  1  \d\.\d{3} a \d+\.\.\d+", ranked[1])


def test_the_launcher_refuses_an_unknown_run_or_theme_before_starting(project: Project) -> None:
    with pytest.raises(StoreError, match="no run 'nope'"):
        run_app(
            None,
            project.corpus,
            annotator="x",
            screen="triage",
            runs_dir=project.runs,
            run_id="nope",
        )
    with pytest.raises(ConfigError, match="unknown theme 'plaid'"):
        run_app(
            None,
            project.corpus,
            annotator="x",
            screen="triage",
            runs_dir=project.runs,
            run_id=LATEST,
            theme="plaid",
        )


async def test_the_list_shows_query_text_and_words_filter_it(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        changes = screen.query_one(ChangeList)
        await pilot.press("2")
        prompts = [changes.get_option_at_index(i).prompt for i in range(changes.option_count)]
        first = prompts[0]
        assert isinstance(first, Content)
        assert first.plain.splitlines()[1].strip() == "ffpp ffqq ffrr ffss ggpp"
        await pilot.press("slash", *"ggpp")
        assert [r.query for r in screen.rows] == ["q-0002"]
        assert text(screen, "#change-count").startswith("1 lost, 0 gained (of 3)")


async def test_an_unknown_slice_is_said_and_the_placeholder_is_no_filter(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        field = screen.query_one("#change-filter", Field)
        assert field.placeholder.startswith("/ to filter — e.g.")
        await pilot.press("slash", *"slice:nope")
        assert screen.rows == []
        assert text(screen, "#change-count") == (
            "no query has slice:nope (slices: billing, critical)"
        )
        await pilot.press(*["backspace"] * len("slice:nope"), *"both-miss")
        assert (screen.rows, text(screen, "#change-count")) == (
            [],
            "0 lost, 0 gained (of 3) at k = 1 · critical first; cut, no signal, disappeared, "
            "crowded, split",
        )  # fmt: skip


async def test_the_head_says_when_the_labels_moved_since_the_run(
    project: Project, store: Store
) -> None:
    # The fixture's runs record a hand-made label set hash; the store's three queries plus a
    # fourth labelled since are not it. (On the demo, a run made from the store shows none.)
    corpus = project.corpus
    text_a = corpus.text("a.md")
    extra = Query("q-0009", "a query labelled after the run", evidence=(
        Span.from_text(text_a, "a.md", 0, 10),))  # fmt: skip
    labelset.import_queries(store, [extra], corpus, annotator="pilot")
    after = triage_app(project, store)
    async with after.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        assert "labels moved since this run" in text(triage(pilot), "#triage-head")


def test_the_store_label_set_hash_is_the_one_eval_would_record(
    project: Project, store: Store
) -> None:
    from labeler.tui.modes import store_label_set_hash

    app = triage_app(project, store)
    queries_now, _ = store.decided_queries()
    expected = labelset.to_json(queries_now, project.corpus)["label_set_hash"]
    assert store_label_set_hash(app) == expected
    text_a = project.corpus.text("a.md")
    extra = Query("q-0009", "labelled later", evidence=(Span.from_text(text_a, "a.md", 0, 10),))
    labelset.import_queries(store, [extra], project.corpus, annotator="pilot")
    assert store_label_set_hash(app) != expected
