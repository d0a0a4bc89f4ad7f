"""The files the last wave added, shared as §15 and §20 ask, with real accounts in one
group: the run folder's chunks.tsv, the embedding cache's `throughput` table and store
migration 6. Every file whole and the group's; a link or FIFO a member plants is refused,
never followed; nothing one member's command leaves locks out another.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evaluator.embedding.probe import CacheProbe
from labeler.core.errors import StoreError
from labeler.core.files import sharing
from labeler.core.store import Store, digests
from labeler.core.values import Span
from tests.cli import test_planted_files as planted
from tests.cli import test_shared_project as shared
from tests.cli.accounts import GROUP, Account, as_user, in_child, modes
from tests.cli.test_shared_project import EXACT, STORE, TEXT, add_span, embedded_project, spanlab

embedded = shared.embedded
"""The hash embedding server (module-wide, as in the shared-project tests)."""
warmed = shared.warmed
"""Every module the commands load, imported before a child drops its uid."""
team = shared.team
"""The lead, alice and bob."""
project = shared.project
"""A setgid folder of the group (2775, root's) holding a corpus everyone may read."""
private = planted.private
"""The lead's own folder outside the project: notes.txt (0600), what links point to."""
people = planted.people
"""The lead, mallory (in the group) and eve (not in it)."""

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

CHUNKS = "chunks.tsv"
"""The chunk table's name in a run folder."""


def runs_of(folder: Path, who: Account) -> list[Path]:
    """`who`'s run folders, oldest first."""
    runs = folder / ".spanlab" / "runs"
    return sorted(r for r in runs.iterdir() if r.owner() == who.name and not r.is_symlink())


def started(lead: Account, folder: Path) -> Path:
    """The lead's project with one labelled query and one run; the run's folder."""
    spanlab(lead, folder, "init", "corpus")
    spanlab(lead, folder, "labels", "import", "q.txt")
    in_child(lead, folder, lambda: add_span(folder))
    spanlab(lead, folder, "eval", "c.toml")
    (run,) = runs_of(folder, lead)
    return run


def test_alice_reads_the_leads_run_and_writes_hers_beside_it_each_chunk_table_the_groups(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, _ = team
    first = started(lead, project)
    assert modes(first, [CHUNKS]) == {CHUNKS: f"0640 {lead.name}:{GROUP}"}  # the group reads
    assert "q-0001" in spanlab(alice, project, "show", first.name, "q-0001")
    spanlab(alice, project, "eval", "c.toml")
    (second,) = runs_of(project, alice)
    assert f"{second.stat().st_mode & 0o7777:04o}" == "2750"
    assert modes(second, [CHUNKS]) == {CHUNKS: f"0640 {alice.name}:{GROUP}"}
    assert (second / CHUNKS).read_bytes() == (first / CHUNKS).read_bytes()  # same cuts
    spanlab(alice, project, "diff", first.name, second.name, "--markdown", "d.md")
    assert "q-0001" in spanlab(lead, project, "show", second.name, "q-0001")
    spanlab(lead, project, "diff", second.name, first.name)
    assert modes(project, ["d.md"]) == {"d.md": f"0660 {alice.name}:{GROUP}"}
    hidden = [r.name for r in (project / ".spanlab" / "runs").iterdir() if r.name[0] == "."]
    assert hidden == []  # no folder written aside is left behind


MALLORY_PLANTS = {
    "link": 'ln -s "$1" "$p/chunks.tsv"',
    "FIFO": 'mkfifo "$p/chunks.tsv"',
}
"""What mallory does in a run folder the lead is writing, given its path on stdin."""


@pytest.mark.parametrize("kind", sorted(MALLORY_PLANTS))
def test_mallory_cannot_plant_in_a_run_folder_the_lead_is_still_writing(
    people: tuple[Account, Account, Account], project: Path, private: Path, kind: str
) -> None:
    """The lead's eval writes its run folder aside, then renames it: mallory, watching
    `.spanlab/runs`, tries her link (or FIFO) at the chunk table's name in it while the
    lead writes. The folder is the lead's alone until it is whole: she cannot."""
    lead, mallory, _ = people
    started(lead, project)
    notes = private / "notes.txt"
    before = planted.state(notes)
    script = (
        f"read p; if {MALLORY_PLANTS[kind]} 2>/dev/null; then echo planted; else echo refused; fi"
    )
    mallory_sh = subprocess.Popen(
        ["sh", "-c", script, "sh", str(notes)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True, cwd=project, user=mallory.uid, group=mallory.gid,
        extra_groups=[mallory.group], umask=0o002,
    )  # fmt: skip
    assert mallory_sh.stdin is not None and mallory_sh.stdout is not None
    ask, hear = mallory_sh.stdin, mallory_sh.stdout

    def lead_evaluates() -> dict[str, Any]:
        make, said = sharing.make_temp_folder, []

        def watched(parent: Path, prefix: str) -> Path:
            aside = make(parent, prefix)  # the run folder, before a file is written in it
            ask.write(f"{aside}\n")
            ask.flush()
            said.append(hear.readline().strip())  # mallory has tried when she answers
            return aside

        sharing.make_temp_folder = watched  # in the lead's child only
        done = planted.as_user_here(["eval", "c.toml"])
        return {**done, "mallory": said}

    try:
        done = in_child(lead, project, lead_evaluates)
    finally:
        ask.close()
        mallory_sh.wait(timeout=60)
    assert done["mallory"] == ["refused"], done
    assert done["code"] == 0, done
    run = runs_of(project, lead)[-1]
    assert stat.S_ISREG(os.lstat(run / CHUNKS).st_mode)
    assert modes(run, [CHUNKS]) == {CHUNKS: f"0640 {lead.name}:{GROUP}"}
    assert f"{run.stat().st_mode & 0o7777:04o}" == "2750"  # the group reads it once whole
    assert planted.state(notes) == before


def test_a_link_mallory_puts_in_place_of_a_finished_runs_file_is_never_followed(
    people: tuple[Account, Account, Account], project: Path, private: Path
) -> None:
    """A finished run folder an older spanlab left the group's (2770; now 2750, which she
    cannot write at all: test_run_files_owned), so mallory may replace its files: a link at
    run.json is refused naming her; a link or FIFO at chunks.tsv (which no command reads)
    leaves show, diff and eval as they were, and the lead's notes untouched."""
    lead, mallory, _ = people
    run = started(lead, project)
    run.chmod(0o2770)  # as an older spanlab left it
    notes = private / "notes.txt"
    before = planted.state(notes)
    planted.plant(mallory, run, CHUNKS, None)  # a FIFO: nothing waits on it
    spanlab(lead, project, "show", run.name, "q-0001")
    spanlab(lead, project, "eval", "c.toml")
    spanlab(lead, project, "diff", run.name, "latest")
    assert stat.S_ISFIFO(os.lstat(run / CHUNKS).st_mode)  # left as it is
    planted.plant(mallory, run, CHUNKS, notes)
    spanlab(lead, project, "diff", run.name, "latest")
    spanlab(lead, project, "show", run.name, "q-0001")
    assert (run / CHUNKS).is_symlink()
    planted.plant(mallory, run, "run.json", notes)
    for command in (["show", run.name, "q-0001"], ["diff", str(run), "latest"]):
        done = as_user(lead, project, command)
        assert done.code == 2, done
        assert done.err.splitlines()[0] == (
            f"error: {run / 'run.json'}: a symbolic link owned by {mallory.name} (to {notes}) "
            f"{planted.KEEPS}"
        )
    assert planted.state(notes) == before


def test_a_run_folder_mallory_swaps_for_a_link_is_no_longer_listed(
    people: tuple[Account, Account, Account], project: Path, private: Path
) -> None:
    """mallory replaces the lead's run folder by a link to a folder of the lead's own that
    holds a run.json: `latest` no longer finds a run there, so nothing is read through it."""
    lead, mallory, _ = people
    run = started(lead, project)
    elsewhere = private / "keep"
    in_child(lead, project, lambda: _copy_run(run, elsewhere))
    in_child(mallory, project, lambda: _move_aside(run))  # runs/ is the group's: a rename
    planted.plant(mallory, run.parent, run.name, elsewhere)
    done = as_user(lead, project, ["show", "latest", "q-0001"])
    assert done.code == 2, done
    assert done.err.splitlines()[0] == f"error: {run.parent}: no runs yet"


def _move_aside(run: Path) -> dict[str, Any]:
    """mallory: the lead's run folder (2750, which she cannot empty) renamed out of its name."""
    os.rename(run, run.with_name(".moved"))
    return {}


def _copy_run(run: Path, to: Path) -> dict[str, Any]:
    (to / "run.json").write_bytes((run / "run.json").read_bytes())
    return {}


CACHE = ".spanlab/embeddings.db"
"""The embedding cache, where eval keeps vectors and the throughput a plan reads."""
CACHE_FILES = [CACHE, f"{CACHE}-wal", f"{CACHE}-shm"]


def measured(folder: Path) -> list[tuple[str, int, float]]:
    """The cache's throughput rows, read as root."""
    conn = sqlite3.connect(f"file:{folder / CACHE}?mode=ro", uri=True)
    try:
        return [(str(f), int(t), float(s)) for f, t, s in
                conn.execute("SELECT fingerprint, texts, seconds FROM throughput")]  # fmt: skip
    finally:
        conn.close()


def rate_seen(folder: Path, fingerprint: str) -> Callable[[], dict[str, Any]]:
    """In a child: the throughput `spanlab plan` reads for the model (its CacheProbe)."""

    def work() -> dict[str, Any]:
        probe = CacheProbe(folder / CACHE)
        try:
            return {"rate": probe.texts_per_second(fingerprint)}
        finally:
            probe.close()

    return work


def test_alice_records_throughput_in_the_leads_cache_and_both_read_what_she_measured(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, _ = team
    embedded_project(lead, project)
    spanlab(lead, project, "eval", "c.toml")
    assert modes(project, [CACHE]) == {CACHE: f"0660 {lead.name}:{GROUP}"}
    (first,) = measured(project)
    wider = EXACT.replace("size = 20", "size = 25")  # new chunks: alice embeds and measures
    (project / "w.toml").write_text(wider, encoding="utf-8")
    spanlab(alice, project, "eval", "w.toml")
    (hers,) = measured(project)
    assert hers[0] == first[0] and hers[1:] != first[1:]  # replaced by alice's session
    assert {m.split()[0] + m.split(":")[1] for m in modes(project, CACHE_FILES).values()} == {
        f"0660{GROUP}"
    }
    rate = hers[1] / hers[2]
    for who in (alice, lead):
        assert in_child(who, project, rate_seen(project, hers[0])) == {"rate": rate}, who.name
    assert measured(project) == [hers]  # reading wrote nothing
    spanlab(lead, project, "eval", "w.toml")  # the lead still writes after alice


def test_a_cache_from_before_throughput_gains_the_table_from_alice_and_the_lead_reads_it(
    team: tuple[Account, ...], project: Path
) -> None:
    """The lead's cache as the wave before left it (no `throughput` table): alice's eval
    adds the table in the lead's file; a plan's probe as the lead then reads her figure."""
    lead, alice, _ = team
    embedded_project(lead, project)
    spanlab(lead, project, "eval", "c.toml")
    in_child(lead, project, _cache_before_throughput)
    before = in_child(lead, project, rate_seen(project, "any"))
    assert before == {"rate": None}  # no table: never measured, not an error
    (project / "w.toml").write_text(EXACT.replace("size = 20", "size = 25"), encoding="utf-8")
    spanlab(alice, project, "eval", "w.toml")
    ((model, texts, seconds),) = measured(project)
    assert in_child(lead, project, rate_seen(project, model)) == {"rate": texts / seconds}


def _cache_before_throughput() -> dict[str, Any]:
    conn = sqlite3.connect(CACHE, isolation_level=None)
    try:
        conn.execute("DROP TABLE throughput")
    finally:
        conn.close()
    return {}


def labelled(folder: Path, start: int, end: int) -> Callable[[], dict[str, Any]]:
    """In a child: a span on q-0001 by whoever runs it (its login); the spans then, or the
    error."""

    def work() -> dict[str, Any]:
        try:
            store = Store.open(folder / STORE, create=False)
            span = Span.from_text(TEXT, "a.md", start, end)
            store.add_span("q-0001", span, TEXT, annotator=os.environ["USER"])
            return {"spans": len(store.query("q-0001").evidence)}
        except StoreError as exc:
            return {"error": str(exc)}

    return work


def test_a_store_the_lead_made_at_version_5_is_migrated_by_alice_and_the_lead_writes_after(
    team: tuple[Account, ...], project: Path
) -> None:
    """Migrations 6 and 7 (evidence groups, facts) on a store an older spanlab left, run by
    whoever opens it first (alice): the store and its WAL stay the group's, the audit stays
    clean, and the lead (its owner) and bob keep writing."""
    lead, alice, bob = team
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")
    in_child(lead, project, lambda: add_span(project))
    in_child(lead, project, _as_version_5)
    assert _version(project) == 5
    assert in_child(alice, project, labelled(project, 22, 51)) == {"spans": 2}
    assert _version(project) == 7
    assert modes(project, shared.FILES)[STORE] == f"0660 {lead.name}:{GROUP}"
    assert all(shared.group_rw(m) for m in modes(project, shared.FILES).values())
    (project / "more.txt").write_text("Who pays for returns?\n", encoding="utf-8")
    spanlab(lead, project, "labels", "import", "more.txt")
    spanlab(bob, project, "labels", "stats")
    audit = as_user(lead, project, ["labels", "audit"])
    assert (audit.code, audit.out.splitlines()[0]) == (
        0, "clean: every row and event matches what spanlab wrote"), audit  # fmt: skip


def _as_version_5() -> dict[str, Any]:
    """The store as spanlab left it before groups: no `grp` column (nor `facts`), version
    5, sealed."""
    conn = sqlite3.connect(STORE, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ALTER TABLE spans DROP COLUMN grp")
        conn.execute("ALTER TABLE queries DROP COLUMN facts")
        conn.execute("PRAGMA user_version = 5")
        digests.seal_all(conn)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return {}


def _version(folder: Path) -> int:
    conn = sqlite3.connect(f"file:{folder / STORE}?mode=ro", uri=True)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()
