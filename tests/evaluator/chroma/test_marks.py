"""On a Chroma server a candidate's collection follows the corpus in place (§6), guarded by
marker collections (`chroma_marks`): a build lock and one lease per run's corpus version,
touched while held, taken over when a killed run left them. Against a real `chroma run`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from evaluator.candidates import parse
from evaluator.pipeline import RunOptions, RunResult, run_evaluation
from evaluator.retrieval.chroma import connect
from evaluator.retrieval.chroma_lease import MARK, session, versions
from evaluator.retrieval.chroma_marks import TOUCHED, Marks, _touch
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from tests.evaluator.chroma.test_chroma_index import DOCS, queries
from tests.evaluator.chroma.test_supersede import EDITED, HASHED, server  # noqa: F401

pytestmark = pytest.mark.chroma_server
A = "sha256:" + "a" * 64
B = "sha256:" + "b" * 64


def evaluate(tmp_path: Path, url: str, texts: dict[str, str]) -> RunResult:
    corpus = Corpus.from_texts(texts)
    opts = RunOptions(cache_path=tmp_path / "cache.db", progress=False, chroma_url=url)
    return run_evaluation(parse(HASHED, file="test.toml"), corpus, queries(corpus),
                          label_corpus_hash=corpus.hash, label_set_hash="sha256:test",
                          options=opts)  # fmt: skip


def marks(url: str, name: str, **timing: float) -> Marks:
    return Marks(connect(url, None), name, url, **timing)


def names(url: str) -> list[str]:
    return sorted(c.name for c in connect(url, None).list_collections())


def test_a_corpus_change_updates_each_collection_in_place(
    tmp_path: Path, private_server: tuple[str, subprocess.Popen[bytes]]
) -> None:
    url, _ = private_server
    first = evaluate(tmp_path, url, DOCS)
    before = names(url)
    assert len(before) == 2  # one per candidate; no lock or lease left behind
    second = evaluate(tmp_path, url, EDITED)
    assert names(url) == before
    client = connect(url, None)
    for name, run in second.runs.items():
        assert run.extra["collection"] == first.runs[name].extra["collection"]
        collection = client.get_collection(run.extra["collection"])
        assert collection.count() == run.stats.chunk_count  # the old version's chunks gone
        assert versions(collection.metadata) == {second.corpus.hash: run.stats.chunk_count}
        # only shipping.md changed: only its chunks were embedded (and added)
        shipping = sum(1 for c in run.chunks if c.doc == "shipping.md")
        assert 0 < run.embeddings["computed"] <= shipping
        assert run.extra["reused"] is False
    third = evaluate(tmp_path, url, EDITED)
    assert all(run.extra["reused"] for run in third.runs.values())


def test_a_run_holding_the_old_version_defers_its_cleanup(
    tmp_path: Path, private_server: tuple[str, subprocess.Popen[bytes]]
) -> None:
    url, _ = private_server
    first = evaluate(tmp_path, url, DOCS)
    name = str(first.runs["w20"].extra["collection"])
    chunks = first.runs["w20"].stats.chunk_count
    with session():
        marks(url, name).lease(first.corpus.hash)  # another run, still searching DOCS
        second = evaluate(tmp_path, url, EDITED)
        held = connect(url, None).get_collection(name)
        assert set(versions(held.metadata)) == {first.corpus.hash, second.corpus.hash}
        assert held.count() > second.runs["w20"].stats.chunk_count
    evaluate(tmp_path, url, EDITED)  # the lease is gone: this run cleans up
    after = connect(url, None).get_collection(name)
    assert set(versions(after.metadata)) == {second.corpus.hash}
    assert after.count() == second.runs["w20"].stats.chunk_count
    assert chunks > 0


def test_a_lock_waits_for_its_holder_then_is_taken(
    chroma_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    first, second = marks(chroma_url, name), marks(chroma_url, name, poll=0.05)
    order: list[str] = []

    def wait_for_it() -> None:
        with second.lock():
            order.append("second")

    with first.lock():
        waiter = threading.Thread(target=wait_for_it)
        waiter.start()
        time.sleep(1.0)
        order.append("first")
    waiter.join(timeout=30)
    assert order == ["first", "second"]
    said = capsys.readouterr().err
    assert f"waiting: another spanlab run is building {name} on {chroma_url} (if it was " in said
    assert "killed, its lock is taken over in " in said and " s at most)" in said
    assert f"{name}-lock" not in names(chroma_url)


def stale(url: str, marker: str, kind: str) -> None:
    connect(url, None).create_collection(marker, metadata={MARK: kind, TOUCHED: time.time() - 3600})


def test_a_killed_runs_lock_is_taken_over(
    chroma_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    stale(chroma_url, f"{name}-lock", "lock")
    with marks(chroma_url, name).lock():
        assert [n for n in names(chroma_url) if n.startswith(name)] == [f"{name}-lock"]
    said = capsys.readouterr().err
    assert "waiting" not in said
    assert f"removed {name}-lock on {chroma_url}: a killed run's build lock" in said
    assert "(untouched for 60 min)" in said
    assert not [n for n in names(chroma_url) if n.startswith(name)]  # nothing left behind


def test_runs_taking_one_stale_lock_over_at_once_hold_it_one_at_a_time(chroma_url: str) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    stale(chroma_url, f"{name}-lock", "lock")
    seen: list[tuple[str, int]] = []
    go = threading.Barrier(6)

    def run(i: int) -> None:
        held = marks(chroma_url, name, poll=0.02)
        go.wait()
        with held.lock():
            seen.append(("in", i))
            time.sleep(0.2)
            seen.append(("out", i))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(seen) == 12
    for at in range(0, 12, 2):  # each in followed by its own out: never two holders
        assert seen[at][0] == "in" and seen[at + 1] == ("out", seen[at][1])
    assert not [n for n in names(chroma_url) if n.startswith(name)]


def test_a_stale_lock_is_removed_by_its_id_never_a_newer_one_of_its_name(
    chroma_url: str,
) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    stale(chroma_url, f"{name}-lock", "lock")
    client = connect(chroma_url, None)
    seen = client.get_collection(f"{name}-lock")  # what a slow taker looked at: stale
    client.delete_collection(f"{name}-lock")  # meanwhile another run took it over
    newer = client.create_collection(f"{name}-lock", metadata={MARK: "lock", TOUCHED: time.time()})
    marks(chroma_url, name)._drop_if_stale(seen, "build lock")  # the slow taker goes on
    assert client.get_collection(f"{name}-lock").id == newer.id
    assert [n for n in names(chroma_url) if n.startswith(name)] == [f"{name}-lock"]


def test_taking_the_lock_sweeps_what_killed_runs_left(
    chroma_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    stale(chroma_url, f"{name}-r{A[7:23]}-dead0001", "lease")  # a killed reader of A
    stale(chroma_url, f"{name}-gone-0123456789ab", "gone")  # a removal cut short
    with session():
        marks(chroma_url, name).lease(B)  # a live reader of B: kept
        with marks(chroma_url, name).lock():
            pass
        left = [n for n in names(chroma_url) if n.startswith(name)]
        assert len(left) == 1 and left[0].startswith(f"{name}-r{B[7:23]}-")
    said = capsys.readouterr().err
    assert f"removed {name}-r{A[7:23]}-dead0001 on {chroma_url}: a killed run's lease" in said
    assert f"removed {name}-gone-0123456789ab on {chroma_url}" in said


def test_held_markers_are_touched_and_a_removed_one_stops_the_run(chroma_url: str) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    holder = marks(chroma_url, name, beat=0.1)
    client = connect(chroma_url, None)
    with holder.lock():
        lock = client.get_collection(f"{name}-lock")
        first = lock.metadata[TOUCHED]
        deadline = time.monotonic() + 10
        while client.get_collection(f"{name}-lock").metadata[TOUCHED] == first:
            assert time.monotonic() < deadline, "the lock was never touched"
            time.sleep(0.05)
        holder.check()  # still ours
        client.delete_collection(f"{name}-lock")  # another run judged it stale
        client.create_collection(f"{name}-lock", metadata={MARK: "lock", TOUCHED: time.time()})
        deadline = time.monotonic() + 10
        with pytest.raises(SpanlabError) as caught:
            while time.monotonic() < deadline:
                holder.check()
                time.sleep(0.05)
        assert f"another spanlab run removed {name}-lock on {chroma_url}" in str(caught.value)
    # the new holder's lock is not this run's to remove
    assert f"{name}-lock" in names(chroma_url)


def test_a_holder_its_thread_could_not_touch_for_half_of_stale_stops(chroma_url: str) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    holder = marks(chroma_url, name, stale=1.0, beat=60.0)  # the thread touches nothing now
    with holder.lock():
        holder.check()
        time.sleep(0.6)
        with pytest.raises(SpanlabError) as caught:
            holder.check()
    assert f"this run could not touch {name}-lock on {chroma_url} for over 0.5 s" in str(
        caught.value
    )


def test_a_stopped_holder_stops_before_another_run_takes_its_lock_over(
    chroma_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    holder = subprocess.Popen(
        [sys.executable, "-m", "tests.evaluator.chroma.workers", "hold", chroma_url, name, "2"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    first = float(holder.stdout.readline())  # it checks as it goes
    os.kill(holder.pid, signal.SIGSTOP)  # frozen past STALE: the next run takes the lock over
    try:
        with marks(chroma_url, name, stale=2.0, poll=0.05).lock():
            taken = time.time()
            os.kill(holder.pid, signal.SIGCONT)
            out, _ = holder.communicate(timeout=60)
    finally:
        if holder.poll() is None:  # the takeover failed: do not leave it stopped
            os.kill(holder.pid, signal.SIGCONT)
            holder.kill()
    *checked, last = out.splitlines()
    assert max([first, *(float(t) for t in checked)]) < taken  # never both held it
    assert "this run could not touch" in json.loads(last)["error"]
    assert f"removed {name}-lock on {chroma_url}: a killed run's build lock" in (
        capsys.readouterr().err
    )


def test_leases_block_a_cleanup_until_released_or_stale(
    chroma_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    cleaner = marks(chroma_url, name)
    with session():
        marks(chroma_url, name).lease(A)
        with cleaner.others_free([A]) as free_a, cleaner.others_free([B]) as free_b:
            assert (free_a, free_b) == (False, True)
        assert len([n for n in names(chroma_url) if n.startswith(f"{name}-r")]) == 1
    with cleaner.others_free([A]) as free:
        assert free  # released when the session ended
    assert not [n for n in names(chroma_url) if n.startswith(name)]
    stale(chroma_url, f"{name}-r{A[7:23]}-dead0001", "lease")
    with cleaner.others_free([A]) as free:
        assert free
    assert f"removed {name}-r{A[7:23]}-dead0001 on {chroma_url}: a killed run's lease" in (
        capsys.readouterr().err
    )
    assert not [n for n in names(chroma_url) if n.startswith(name)]


def test_the_touching_thread_ends_with_the_last_marker(chroma_url: str) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"

    def touching() -> list[Any]:
        return [t for t in threading.enumerate() if t.name == "spanlab-chroma-touch"]

    with session():
        marks(chroma_url, name, beat=0.1).lease(A)
        assert touching()
        child = os.fork()
        if child == 0:  # a forked child holds none of the parent's markers: it touches none
            from evaluator.retrieval import chroma_marks

            os._exit(0 if chroma_marks._beat.thread is None and not chroma_marks._beat.held else 1)
        assert os.waitpid(child, 0)[1] == 0
    deadline = time.monotonic() + 5
    while touching():  # a forked child must not inherit a thread mid-call
        assert time.monotonic() < deadline, "the touching thread outlived its markers"
        time.sleep(0.05)


def test_spanlab_cache_lists_the_servers_collections_and_who_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    private_server: tuple[str, subprocess.Popen[bytes]],
) -> None:  # fmt: skip
    from typer.testing import CliRunner

    from evaluator.retrieval.chroma_lease import BUILT, COMPLETE, FAMILY
    from labeler.cli import app

    url, _ = private_server
    monkeypatch.chdir(tmp_path)
    first = evaluate(tmp_path, url, DOCS)
    name = str(first.runs["w20"].extra["collection"])
    client = connect(url, None)
    kin = client.get_collection(name).metadata[FAMILY]
    two_hours_ago = int((time.time() - 7200) * 1e9)  # an earlier spanlab's, past its grace
    client.create_collection("spanlab-" + "0" * 40, metadata={COMPLETE: True, FAMILY: kin,
                                                              BUILT: two_hours_ago})  # fmt: skip
    stale(url, f"{name}-r{A[7:23]}-dead0001", "lease")
    hostile = {FAMILY: "other", COMPLETE: True, "candidate": "evil\x1b]52;c;QUFB\x07\nfake line"}
    client.create_collection("spanlab-" + "1" * 40, metadata=hostile)  # another tool's words
    with session():
        marks(url, name).lease(first.corpus.hash)
        shown = CliRunner().invoke(app, ["cache", "--chroma-url", url])
    assert shown.exit_code == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "evil\\x1b]52;c;QUFB\\x07\\nfake line" in shown.stdout  # escaped, on its own row
    assert f"chroma server    {url}  4 spanlab collection(s)" in shown.stdout
    assert shown.stdout.count("  live     spanlab-") == 3
    assert f"  live     {name}  w20  " in shown.stdout
    assert " chunks  1 corpus version  1 run reading\n" in shown.stdout
    assert f"  stale    spanlab-{'0' * 40}" in shown.stdout
    assert "1 of them an earlier spanlab's: the next eval of their candidate removes them" in (
        shown.stdout
    )
    assert "1 lock or lease marker(s) a killed run left" in shown.stdout
    gone = CliRunner().invoke(app, ["cache", "--chroma-url", "http://127.0.0.1:9"])
    assert gone.exit_code == 0, gone.stderr
    assert "chroma server    http://127.0.0.1:9  not listed: cannot reach the Chroma server" in (
        gone.stdout
    )


def test_a_holders_touch_during_a_removal_names_its_marker_back_or_finds_it_lost(
    chroma_url: str,
) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    holder = marks(chroma_url, name, beat=60.0)  # touched by hand below
    client = connect(chroma_url, None)
    with holder.lock():
        (h,) = holder.held
        # a remover renamed it (its first step) and the holder's touch comes before its delete
        client.get_collection(f"{name}-lock").modify(name=f"{name}-gone-aaaa")
        _touch(h)
        assert client.get_collection(f"{name}-lock").id == h.collection.id and not h.lost
        assert not [n for n in names(chroma_url) if n.startswith(f"{name}-gone-")]
        # renamed again, and a newer run made the lock meanwhile: the touch finds it lost
        client.get_collection(f"{name}-lock").modify(name=f"{name}-gone-bbbb")
        newer = client.create_collection(f"{name}-lock", metadata={MARK: "lock"})
        _touch(h)
        assert h.lost and client.get_collection(f"{name}-lock").id == newer.id
        with pytest.raises(SpanlabError, match="another spanlab run removed"):
            holder.check()


def test_a_removal_whose_marker_its_holder_named_back_says_it_removed_nothing(
    chroma_url: str,
) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    stale(chroma_url, f"{name}-lock", "lock")
    client = connect(chroma_url, None)
    seen = client.get_collection(f"{name}-lock")
    real = client.delete_collection

    def named_back(gone: str) -> None:  # the holder's touch lands between rename and delete
        client.get_collection(gone).modify(name=f"{name}-lock")
        real(gone)

    remover = marks(chroma_url, name)
    remover.client.delete_collection = named_back
    assert remover._remove(seen) is False
    assert client.get_collection(f"{name}-lock").id == seen.id


def test_a_lock_whose_sweep_fails_is_released(chroma_url: str) -> None:
    name = f"spanlab-t{uuid.uuid4().hex[:12]}"
    taker = marks(chroma_url, name)

    def broken() -> None:
        raise SpanlabError("the sweep failed", key="chroma_url")

    taker._sweep = broken  # type: ignore[method-assign]
    with pytest.raises(SpanlabError, match="the sweep failed"), taker.lock():
        pass
    assert not taker.held and f"{name}-lock" not in names(chroma_url)


def test_spanlab_cache_and_eval_take_an_earlier_spanlabs_collection_by_one_rule() -> None:
    from evaluator.retrieval.chroma import EARLIER_GRACE, STALE_BUILD, earlier_leftover
    from evaluator.retrieval.chroma_lease import BUILT, COMPLETE, FAMILY

    now, kin = time.time(), "k" * 24
    other = "spanlab-" + "0" * 40  # an earlier spanlab's name: not its family's own
    old, young = int((now - EARLIER_GRACE - 60) * 1e9), int((now - 60) * 1e9)
    assert earlier_leftover(other, {COMPLETE: True, FAMILY: kin, BUILT: old}, now)
    assert earlier_leftover(other, {COMPLETE: True, FAMILY: kin, BUILT: young}, now) is None
    assert earlier_leftover(other, {FAMILY: kin, TOUCHED: now - STALE_BUILD - 60}, now)
    assert earlier_leftover(other, {FAMILY: kin, TOUCHED: now - 60}, now) is None
    own = "spanlab-" + kin + "0" * 16  # the family's own collection, complete or not
    assert earlier_leftover(own, {COMPLETE: True, FAMILY: kin, BUILT: old}, now) is None
    assert earlier_leftover(own, {FAMILY: kin, TOUCHED: 0.0}, now) is None
    assert earlier_leftover(other, {MARK: "lock", FAMILY: kin, TOUCHED: 0.0}, now) is None
