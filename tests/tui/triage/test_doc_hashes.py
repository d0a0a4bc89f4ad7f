"""Per-document hashes in run.json (issue 33): the boundary view of a query is refused only
when its own documents changed, older runs without the key still read, and a hostile
`doc_hashes` is one RunFileError naming the key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.runs.model import read_run
from evaluator.runs.model_json import RunFileError
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from labeler.tui.app import SpanlabApp
from labeler.tui.messages import CorpusChanged
from labeler.tui.triage.detail import check_corpus, query_detail
from labeler.tui.triage.model import RunView
from tests.tui.triage.conftest import DOC_A, LATEST, TEXTS, Project
from tests.tui.triage.test_screen import open_query


def copied(project: Project, tmp_path: Path, edit: object = None) -> RunView:
    """LATEST copied, its run.json's manifest edited by `edit(manifest)`."""
    folder = tmp_path / LATEST
    shutil.copytree(project.runs / LATEST, folder)
    if callable(edit):
        path = folder / "run.json"
        raw = json.loads(path.read_text(encoding="utf-8"))
        edit(raw["manifest"])
        path.write_text(json.dumps(raw), encoding="utf-8")
    return RunView(read_run(folder))


def test_a_run_records_each_documents_hash(project: Project) -> None:
    run = RunView(read_run(project.runs / LATEST))
    assert run.file.manifest.doc_hashes == project.corpus.doc_hashes


def test_an_unrelated_new_document_keeps_the_boundary_view(project: Project) -> None:
    run = RunView(read_run(project.runs / LATEST))
    grown = Corpus.from_texts({**TEXTS, "new.md": "An unrelated page. " * 1000})
    detail = query_detail(run, "q-0001", "c40", grown)
    assert detail.note is None and [v.doc for v in detail.views] == ["a.md"]


def test_a_changed_document_of_the_query_is_named(project: Project) -> None:
    run = RunView(read_run(project.runs / LATEST))
    moved = Corpus.from_texts({**TEXTS, "a.md": DOC_A.upper()})
    with pytest.raises(SpanlabError, match=r"\(a\.md changed\): its chunk boundaries"):
        check_corpus(run, moved, ["a.md"])
    assert query_detail(run, "q-0001", "c40", moved).views == ()
    check_corpus(run, Corpus.from_texts({**TEXTS, "b.md": "other"}), ["a.md"])  # not its doc


def test_an_older_run_without_the_key_refuses_as_before(project: Project, tmp_path: Path) -> None:
    run = copied(project, tmp_path, lambda m: m.pop("doc_hashes"))
    assert run.file.manifest.doc_hashes == {}
    grown = Corpus.from_texts({**TEXTS, "new.md": "An unrelated page."})
    assert query_detail(run, "q-0001", "c40", grown).note is not None
    assert query_detail(run, "q-0001", "c40", project.corpus).note is None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ([], "doc_hashes"),
        ({"a.md": 3}, "doc_hashes"),
        ({"a.md": "md5:abc"}, "is not a sha256: hash"),
        ({"a.md": "sha256:\u001b[2J"}, "doc_hashes"),
    ],
)
def test_a_hostile_doc_hashes_is_refused_naming_the_key(
    project: Project, tmp_path: Path, value: object, said: str
) -> None:
    def edit(m: dict[str, object]) -> None:
        m["doc_hashes"] = value

    with pytest.raises(RunFileError, match=said):
        copied(project, tmp_path, edit)


async def test_an_open_query_screen_draws_again_when_the_corpus_matches_again(
    app: SpanlabApp, project: Project
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await open_query(pilot, downs=0)
        assert screen.detail is not None and screen.detail.note is None
        edited = Corpus.from_texts({**TEXTS, "a.md": DOC_A.upper()})
        for corpus, refused in ((edited, True), (project.corpus, False)):
            for s in (screen, app.screen_stack[0]):
                s.post_message(CorpusChanged(corpus, ("a.md",), 0))
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert screen.detail is not None and (screen.detail.note is not None) == refused
            assert bool(screen.detail.views) != refused
