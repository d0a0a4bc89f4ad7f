"""The reading phase of an import says how far it is (issue 45): readers tell the
command's task the bytes (or characters) parsed against the file's size, then the records
checked against their count, through the one `progress` argument every format takes."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.progress import Advance, Stepped

TEXT = "Refunds take five days. Cards are credited within two days.\n"
CORPUS = Corpus.from_texts({"a.md": TEXT})


class Tasks:
    """A task factory that keeps, per task, its total and every position reached."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[int, list[int]]] = {}

    @contextmanager
    def __call__(self, description: str, total: int) -> Iterator[Advance]:
        positions: list[int] = []
        self.seen[description] = (total, positions)
        yield lambda n: positions.append((positions[-1] if positions else 0) + n)


def _prodigy(path: Path, n: int) -> int:
    line = (
        '{"text": %s, "spans": [{"start": 0, "end": 23}], "answer": "accept", '
        '"meta": {"question": "How long is refund %d?", "doc": "a.md"}}\n'
    )
    body = "".join(line % ('"' + TEXT.replace("\n", "\\n") + '"', i) for i in range(n))
    path.write_text(body, encoding="utf-8")
    return len(body.encode())


def _assert_rises_to(positions: list[int], total: int, at_least: int) -> None:
    assert len(positions) >= at_least
    assert all(a < b for a, b in itertools.pairwise(positions))
    assert positions[-1] == total


def test_a_jsonl_file_reports_bytes_then_records(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    size = _prodigy(path, 1_000)
    tasks = Tasks()
    done = formats.get("prodigy").read(path, CORPUS, existing=(), progress=tasks)
    assert len(done.queries) == 1_000
    assert list(tasks.seen) == ["reading p.jsonl", "checking 1,000 records"]
    total, positions = tasks.seen["reading p.jsonl"]
    assert total == size == path.stat().st_size
    _assert_rises_to(positions, size, 100)  # a step of a 200th of the file, not one jump
    total, positions = tasks.seen["checking 1,000 records"]
    assert total == 1_000
    _assert_rises_to(positions, 1_000, 200)


def test_a_csv_file_reports_characters_parsed(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    body = "question\n" + "".join(f'"Is refund {n}, of ¢5, free?"\n' for n in range(3_000))
    path.write_text(body, encoding="utf-8")
    tasks = Tasks()
    done = formats.get("queries").read(path, CORPUS, existing=(), progress=tasks)
    assert len(done.queries) == 3_000
    total, positions = tasks.seen["reading q.csv"]
    assert total == len(body) == path.stat().st_size - 3_000  # characters: ¢ is 2 bytes
    _assert_rises_to(positions, total, 100)


def test_a_json_file_reports_its_parse_then_each_task(tmp_path: Path) -> None:
    tasks_ = [{"data": {"text": TEXT, "question": f"How long {n}?"}, "annotations": []}
              for n in range(400)]  # fmt: skip
    path = tmp_path / "ls.json"
    path.write_text(json.dumps(tasks_), encoding="utf-8")
    tasks = Tasks()
    formats.get("label-studio").read(path, CORPUS, existing=(), progress=tasks)
    assert tasks.seen["reading ls.json"] == (len(path.read_text()), [len(path.read_text())])
    total, positions = tasks.seen["checking 400 tasks"]
    _assert_rises_to(positions, 400, 200)
    assert total == 400


@pytest.mark.parametrize(("total", "calls"), [(1_000, [5] * 200), (50, [1] * 50)])
def test_stepped_passes_counts_on_in_a_200th(total: int, calls: list[int]) -> None:
    passed: list[int] = []
    step = Stepped(passed.append, total)
    for _ in range(total):
        step(1)
    step.flush()
    assert passed == calls


def test_a_spanlab_label_set_reports_its_parse_then_each_query(tmp_path: Path) -> None:
    from labeler.core.labels import labelset
    from labeler.core.store import Store

    store = Store.open(tmp_path / "labels.db")
    store.bind(CORPUS.doc_hashes)
    for n in range(300):
        store.add_query(f"How long {n}?", annotator="ann", abstain=True)
    path = tmp_path / "set.json"
    labelset.write_json(labelset.export(store, CORPUS), path)
    store.close()
    tasks = Tasks()
    assert len(labelset.read(path, CORPUS, tasks).queries) == 300
    size = len(path.read_text(encoding="utf-8"))
    assert tasks.seen["reading set.json"] == (size, [size])
    total, positions = tasks.seen["checking 300 queries"]
    assert total == 300
    _assert_rises_to(positions, 300, 200)
