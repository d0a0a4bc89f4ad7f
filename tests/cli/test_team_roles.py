"""Roles in the CLI (§15): with `[team]` in spanlab.toml the login is the name on edits,
each lead's command refuses an annotator (exit 2, naming the role and the spanlab.toml
line, nothing written), and a lead may act for the project.

The tests are the real login running spanlab, placed in `[team]` as a lead or an
annotator; one forks a child that becomes another Unix user, as a team member would be.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from labeler.core.store import Store
from labeler.core.team.roles import login_name
from labeler.core.values import Span
from tests.cli.test_cli import DB, initialised, run, workdir, write_labels

__all__ = ["workdir"]  # the fixture, used by name

ME = login_name()


def with_team(folder: Path, leads: list[str], annotators: list[str]) -> None:
    """Add `[team]` to the spanlab.toml `init` wrote: leads on its line 2 after the header."""
    toml = folder / "spanlab.toml"
    text = toml.read_text(encoding="utf-8")
    team = f"\n[team]\nleads = {json.dumps(leads)}\nannotators = {json.dumps(annotators)}\n"
    toml.write_text(text + team, encoding="utf-8")


def leads_line(folder: Path) -> int:
    lines = (folder / "spanlab.toml").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if line.startswith("leads"))


@pytest.fixture
def as_annotator(workdir: Path) -> Path:
    """The labels are in; then `[team]` names someone else lead and this login annotator."""
    initialised(workdir)
    with_team(workdir, ["tl-lead"], [ME])
    return workdir


def snapshot() -> tuple[object, ...]:
    store = Store.open(DB, create=False)
    try:
        rows = store.conn.execute("SELECT id, annotator, revision FROM queries").fetchall()
        return (tuple(map(tuple, rows)), store.assigned(), store.data_version())
    finally:
        store.close()


@pytest.mark.parametrize(
    ("args", "act"),
    [
        (("labels", "import", "labels.json", "--replace"), "importing labels"),
        (("labels", "assign", ME), "assigning queries"),
        (("adjudicate",), "adjudicating"),
        (("review",), "reviewing stale spans"),
        (("eval", "--preset", "chroma-report"), "running evals"),
    ],
)
def test_an_annotator_is_refused_each_leads_command(
    as_annotator: Path, args: tuple[str, ...], act: str
) -> None:
    before = snapshot()
    done = run(*args)
    assert done.exit_code == 2, done.output
    line = leads_line(as_annotator)
    assert (
        f'{ME} is an annotator; {act} is for leads (spanlab.toml line {line}: leads = ["tl-lead"])'
        in done.stderr
    )
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert snapshot() == before


def test_an_annotator_may_read(as_annotator: Path) -> None:
    assert run("review", "--list").exit_code == 0
    assert run("labels", "stats").exit_code == 0
    assert run("labels", "export", "out.json").exit_code == 0


def test_annotator_may_not_name_someone_else(as_annotator: Path) -> None:
    before = snapshot()
    for args in (("label", "--annotator", "tl-lead"), ("labels", "import", "labels.json",
                 "--annotator", "tl-lead"), ("triage", "--annotator", "carol")):  # fmt: skip
        done = run(*args)
        assert done.exit_code == 2, done.output
        assert "with a [team] in spanlab.toml, edits carry your login" in done.stderr
        assert "key --annotator" in done.stderr
    done = run("labels", "import", "labels.json", "--annotator", "project")
    assert done.exit_code == 2
    assert f"{ME} is not a lead; acting as the project is for leads" in done.stderr
    assert snapshot() == before


def test_someone_not_on_the_team_cannot_label(workdir: Path) -> None:
    initialised(workdir)
    with_team(workdir, ["tl-lead"], ["tl-alice"])
    done = run("label")
    assert done.exit_code == 2
    assert f"{ME} is not on the team; labelling is for annotators and leads" in done.stderr
    assert 'annotators = ["tl-alice"]' in done.stderr


def test_a_lead_imports_under_the_login_or_for_the_project(workdir: Path) -> None:
    assert run("init", "corpus").exit_code == 0
    with_team(workdir, [ME], ["tl-alice", "tl-bob"])
    write_labels(workdir / "labels.json", workdir / "corpus")
    done = run("labels", "import", "labels.json", "--annotator", "project")
    assert done.exit_code == 0, done.stderr
    store = Store.open(DB, create=False)
    q = store.query("q-0001")
    assert q.annotator == "project" and {s.annotator for s in q.evidence} == {"project"}
    done = run("labels", "assign", "tl-alice", "tl-bob", "--copies", "2")
    assert done.exit_code == 0, done.stderr
    assert store.queue("tl-bob") == ["q-0001", "q-0002", "q-0003"]
    by = store.conn.execute("SELECT DISTINCT assigned_by FROM assignments").fetchall()
    assert [r[0] for r in by] == [ME]


def test_a_queue_for_someone_off_the_team_is_refused(workdir: Path) -> None:
    initialised(workdir)
    with_team(workdir, [ME], ["tl-alice"])
    done = run("labels", "assign", "tl-alice", "tl-alcie")
    assert done.exit_code == 2
    assert "'tl-alcie' is not on the team; queues are for its members" in done.stderr
    assert Store.open(DB, create=False).assigned() == {}


def test_without_a_team_annotator_is_free_as_before(workdir: Path) -> None:
    initialised(workdir)  # imports as --annotator ann
    assert Store.open(DB, create=False).query("q-0001").annotator == "ann"
    assert run("labels", "assign", "alice", "--annotator", "carol").exit_code == 0


# -- another Unix user, for real ---------------------------------------------------------


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[Path]:
    """A project another uid can read (tmp_path is root's 0700 folder)."""
    folder = Path(tempfile.mkdtemp(prefix="spanlab-team-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def as_user(uid: int, gid: int, folder: Path, *args: str) -> tuple[int, str]:
    """Run spanlab as `uid` in a forked child (everything imported before the switch)."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            os.chdir(folder)
            done = run(*args)
            os.write(write, json.dumps([done.exit_code, done.stderr]).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        code, stderr = json.loads(pipe.read())
    os.waitpid(child, 0)
    return int(code), str(stderr)


@pytest.mark.skipif(os.geteuid() != 0, reason="switching uid needs root (CI runs as root)")
def test_another_login_is_who_the_team_says(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nobody = pwd.getpwnam("nobody")
    monkeypatch.chdir(shared)
    (shared / "corpus").mkdir()
    (shared / "corpus" / "a.md").write_text("Refunds take five days.\n", encoding="utf-8")
    assert run("init", "corpus").exit_code == 0
    with_team(shared, [ME], ["nobody"])
    for path in (shared, shared / "corpus", shared / ".spanlab"):
        path.chmod(0o755)
    monkeypatch.setenv("USER", ME)  # $USER says root: the uid decides, not the environment
    code, stderr = as_user(nobody.pw_uid, nobody.pw_gid, shared, "labels", "assign", "nobody")
    assert code == 2
    assert "nobody is an annotator; assigning queries is for leads" in stderr
    code, stderr = as_user(nobody.pw_uid, nobody.pw_gid, shared, "label", "--annotator", ME)
    assert code == 2
    assert "edits carry your login (nobody)" in stderr


def test_stats_credit_adjudication_in_text_and_json(workdir: Path) -> None:
    initialised(workdir)
    text = (workdir / "corpus" / "a.md").read_text(encoding="utf-8")
    store = Store.open(DB, create=False)
    for who, end in (("alice", 40), ("bob", 30)):
        store.view = who
        store.add_span("q-0003", Span.from_text(text, "a.md", 10, end), text, annotator=who)
    store.view = ""
    seen = store.query("q-0003").revision
    store.adjudicate("q-0003", "keep", keep=["bob"], annotator="rita", seen=seen)
    store.close()
    done = run("labels", "stats")
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.splitlines()
    head = lines.index("work    created  spans  reviewed  adjudicated  stale resolved")
    rows = {line.split()[0]: line.split()[1:] for line in lines[head + 1 :]}
    assert rows["rita"] == ["0", "0", "0", "1", "0"]
    assert rows["bob"] == ["0", "1", "0", "0", "0"]  # the span kept is bob's own
    data = json.loads(run("labels", "stats", "--json").stdout)
    assert data["work"]["rita"] == {
        "queries": 0, "spans": 0, "reviewed": 0, "adjudicated": 1, "resolved": 0,
    }  # fmt: skip
