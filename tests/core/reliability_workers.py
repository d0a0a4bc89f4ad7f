"""Processes for the §13 reliability tests: concurrent writers and a writer to kill.

They live in their own small module so a spawned process imports only the store, not
pytest and the test module around it.
"""

from __future__ import annotations

import sys
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier

from labeler.core.store import Store
from labeler.core.values import Span

TEXT = "Refunds are paid within 30 days of purchase.\n"
DOC = "policy.md"
QUOTE = (TEXT.index("30 days"), TEXT.index("30 days") + 7)


def label_one(store: Store, text: str, annotator: str) -> str:
    """One query with one span, in two committed writes; returns the query id."""
    q = store.add_query(text, annotator=annotator)
    store.add_span(q.id, Span.from_text(TEXT, DOC, *QUOTE), TEXT, annotator=annotator)
    return q.id


def concurrent_writer(
    path: str, worker: int, count: int, barrier: Barrier, results: Queue[tuple[int, list[str]]]
) -> None:
    """Open the store, wait for every sibling, then label `count` queries as fast as it can."""
    errors: list[str] = []
    try:
        store = Store.open(path)
        barrier.wait(timeout=60)
        for i in range(count):
            label_one(store, f"worker {worker} query {i}", f"w{worker}")
        store.close()
    except BaseException as exc:  # every error is reported, none may happen
        errors.append(repr(exc))
    results.put((worker, errors))


def crash_writer(path: str, acks: int) -> None:
    """Acknowledge each committed query on stdout, then hang inside a long transaction."""
    store = Store.open(path)
    for i in range(acks):
        print("ack", label_one(store, f"acknowledged {i}", "crash"), flush=True)
    with store.write() as db:
        for i in range(500):
            qid = f"uncommitted-{i}"
            db.execute(
                "INSERT INTO queries (id, text, boundary, status, created, updated) "
                "VALUES (?, ?, 'other', 'draft', '', '')",
                [qid, qid],
            )
        print("in-transaction", flush=True)
        time.sleep(120)


def endless_writer(path: str) -> None:
    """Acknowledge committed queries on stdout until killed."""
    store = Store.open(path)
    i = 0
    while True:
        print("ack", label_one(store, f"endless {i}", "endless"), flush=True)
        i += 1


if __name__ == "__main__":
    if sys.argv[1] == "crash":
        crash_writer(sys.argv[2], int(sys.argv[3]))
    else:
        endless_writer(sys.argv[2])
