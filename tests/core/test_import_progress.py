"""Long imports say how far they are, and a refused one refuses first (issue 45, item 7):
an import into a store whose spans wait for review is refused before its file is read;
checking and writing report their position through the command's task factory; ids for
many new questions are taken in one step; nested bars share one display."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from evaluator.pipeline import progress
from labeler.core.anchoring.binding import sync
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import StoreError
from labeler.core.labels import imports
from labeler.core.labels.labelset_import import import_queries
from labeler.core.progress import Advance
from labeler.core.store import Store, Version
from labeler.core.values import Query, Span
from tests.progress_tasks import recording

TEXT = "Refunds take five days. Cards are credited within two days.\n"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store.open(tmp_path / "labels.db")
    s.bind(Corpus.from_texts({"a.md": TEXT}).doc_hashes)
    yield s
    s.close()


def test_a_refused_import_refuses_before_reading(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add_query("How long?", annotator="ann")
    store.add_span("q-0001", Span.from_text(TEXT, "a.md", 0, 23), TEXT, annotator="ann")
    edited = Corpus.from_texts({"a.md": "Refunds take ten days. " + TEXT[24:]})
    status = sync(store, edited)
    assert status.waiting == 1

    def read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was read")

    monkeypatch.setattr(imports, "_read", read)
    questions = tmp_path / "q.txt"
    questions.write_text("Is it free?\n", encoding="utf-8")
    with pytest.raises(StoreError, match="1 span\\(s\\) wait for review"):
        imports.import_file(
            store, edited, status, questions, imports.ImportOptions("queries", "ann")
        )


def test_an_import_reports_reading_checking_and_writing(store: Store, tmp_path: Path) -> None:
    seen: dict[str, list[int]] = {}
    task = recording(seen)

    questions = tmp_path / "q.txt"
    questions.write_text("".join(f"Question {n}?\n" for n in range(12_001)), encoding="utf-8")
    size = questions.stat().st_size
    corpus = Corpus.from_texts({"a.md": TEXT})
    opts = imports.ImportOptions("queries", "ann", task=task)
    done = imports.import_file(store, corpus, sync(store, corpus), questions, opts)
    assert done.imported == 12_001
    assert seen == {
        "reading the store": [0, 0],  # by query: none stored yet
        "reading q.txt": [size, size],  # bytes parsed of the file's
        "checking queries": [12_001, 12_001],
        "saving to the store": [1, 1],
        "writing queries": [12_001, 12_001],
        # 12,001 queries and the id counter: read back, hashed, journalled, committed
        "sealing the write": [48_008, 48_008],
    }
    assert store.count("queries") == 12_001
    assert store.query("q-12001").text == "Question 12000?"  # ids taken in order, in one step


def test_ids_for_many_are_taken_in_one_step(store: Store) -> None:
    store.add_query("First?", annotator="ann")
    with store.write() as db:
        assert store.allocate_query_ids(db, 3) == ["q-0002", "q-0003", "q-0004"]
        assert store.allocate_query_ids(db, 0) == []
    assert store.next_query_id() == "q-0005"


def test_a_task_inside_a_task_joins_its_display() -> None:
    with progress.task("outer", 2, enabled=True) as outer:
        with progress.task("inner", 3, enabled=True) as inner:  # no second live display
            inner(3)
        outer(2)


def test_an_export_reports_its_steps(store: Store, tmp_path: Path) -> None:
    from labeler.core.labels import exports

    store.add_query("How long?", annotator="ann", abstain=True)
    steps: list[tuple[str, int]] = []

    @contextmanager
    def task(description: str, total: int) -> Iterator[Advance]:
        steps.append((description, total))
        yield lambda n: steps.append(("advanced", n))

    corpus = Corpus.from_texts({"a.md": TEXT})
    done = exports.export_file(store, corpus, tmp_path / "out.json", "spanlab", task=task)
    assert done.queries == 1
    assert steps == [("exporting to out.json: read, write, hash", 3), *[("advanced", 1)] * 3]


def test_new_questions_read_the_store_once_under_a_line_of_their_own(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tmux trial (200,000 questions into a store of 200,000): 47 of 74 s showed no
    line, three whole reads of the store among them. Questions bring no ids of their own,
    so no stored query can conflict: the store is read once, for duplicates, and says so."""
    for n in range(3):
        store.add_query(f"Stored {n}?", annotator="ann")
    reads: list[int] = []
    every = Store.queries

    def queries(self: Store, advance: Advance | None = None) -> object:
        reads.append(1)
        return every(self, advance)

    monkeypatch.setattr(Store, "queries", queries)
    steps: list[str] = []
    moved: dict[str, list[int]] = {}

    @contextmanager
    def task(description: str, total: int) -> Iterator[Advance]:
        steps.append(description)
        moved[description] = [total, 0]
        yield lambda n: moved[description].__setitem__(1, moved[description][1] + n)

    questions = tmp_path / "q.txt"
    questions.write_text("Stored 1?\nIs it new?\n", encoding="utf-8")
    corpus = Corpus.from_texts({"a.md": TEXT})
    opts = imports.ImportOptions("queries", "ann", task=task)
    done = imports.import_file(store, corpus, sync(store, corpus), questions, opts)
    assert (done.imported, len(reads)) == (1, 1)
    assert steps == [
        "reading the store",
        "reading q.txt",
        "checking queries",
        "saving to the store",
        "writing queries",
        "sealing the write",
    ]
    assert moved["reading the store"] == [3, 3]  # by query read


def test_versions_follow_a_new_query_to_the_id_the_store_gives(store: Store) -> None:
    """A double-annotated question gets its id from the store, past a retired one: its
    annotators' versions went with the reader's made-up id and were silently dropped."""
    store.add_query("Kept?", annotator="ann")
    store.add_query("Gone?", annotator="ann")
    store.delete_query("q-0002", annotator="ann")  # q-0002 stays retired
    corpus = Corpus.from_texts({"a.md": TEXT})
    versions = [
        ("q-0002", Version("bob", False, (Span.from_text(TEXT, "a.md", 0, 23),))),
        ("q-0002", Version("carol", False, (Span.from_text(TEXT, "a.md", 24, 59),))),
    ]
    done = import_queries(store, [Query("q-0002", "How long?")], corpus, annotator="ann",
                          fresh={"q-0002"}, versions=versions)  # fmt: skip
    assert done == 1 and [q.id for q in store.queries()] == ["q-0001", "q-0003"]
    assert sorted(store.versions(["q-0003"])["q-0003"]) == ["bob", "carol"]
