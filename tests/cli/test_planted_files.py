"""§20, files: mallory (a member of the group) plants a link, a FIFO or a device where
spanlab keeps a file or a folder of the project; the lead's next command refuses, naming
what is there and mallory, and the lead's private file it points to is as it was. eve,
outside the group, is refused with the fix. Real accounts, each step in a child process
that became that account (tests.cli.accounts).
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli import test_shared_project as shared
from tests.cli.accounts import (
    GROUP,
    Account,
    accounts,
    as_user,
    in_child,
    modes,
    more_accounts,
    unwarned,
)
from tests.cli.test_shared_project import CANDIDATES, STORE, add_span, spanlab

embedded = shared.embedded
"""The hash embedding server (module-wide, as in the shared-project tests)."""
warmed = shared.warmed
"""Every module the commands load, imported before a child drops its uid."""
team = shared.team
"""The lead, alice and bob."""
project = shared.project
"""A setgid folder of the group (2775, root's) holding a corpus everyone may read."""

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

CHROMA = CANDIDATES.replace(
    'retriever = "lexical"', 'retriever = "chroma"\nembedding = "openai:hash"'
)
"""The candidates of an eval that uses the embedding cache and an embedded Chroma folder."""
KEEPS = "is here, where spanlab keeps a regular file of its own: refused, left as it is"
"""How a refusal of a planted file ends."""
IN_CHROMA = (
    "is here, where spanlab keeps only regular files and folders of its own: refused, left as it is"
)
"""How it ends for one in Chroma's folder, found before Chroma opens anything there."""


@pytest.fixture
def people(team: tuple[Account, ...]) -> tuple[Account, Account, Account]:
    """The lead, mallory (in the group) and eve (not in it)."""
    _carol, mallory, eve = more_accounts()
    return team[0], mallory, eve


@pytest.fixture
def private(people: tuple[Account, Account, Account]) -> Iterator[Path]:
    """The lead's own folder outside the project (0700), holding notes.txt (0600) and an
    empty folder `keep/` (0700): what mallory's links point to."""
    lead = people[0]
    folder = Path(tempfile.mkdtemp(prefix="spanlab-lead-", dir="/tmp"))
    (folder / "notes.txt").write_text("the lead's own notes\n", encoding="utf-8")
    (folder / "keep").mkdir()
    for path, mode in ((folder, 0o700), (folder / "notes.txt", 0o600), (folder / "keep", 0o700)):
        os.chown(path, lead.uid, lead.gid)
        path.chmod(mode)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def state(path: Path) -> tuple[Any, ...]:
    """What a planted link must not change: mode, owner, group, content (or listing)."""
    st = os.lstat(path)
    body = sorted(os.listdir(path)) if path.is_dir() else path.read_bytes()
    return st.st_mode, st.st_uid, st.st_gid, body


def plant(mallory: Account, folder: Path, name: str, target: Path | None) -> None:
    """As mallory: put a link to `target` (a FIFO when None) in place of `name`."""

    def work() -> dict[str, Any]:
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif os.path.lexists(path):
            path.unlink()
        if target is None:
            os.mkfifo(path, 0o660)
        else:
            os.symlink(target, path)
        return {}

    in_child(mallory, folder, work)


def started(lead: Account, folder: Path, *, chroma: bool = False) -> None:
    """The lead's project: init, one query with a span, and (chroma) a first eval."""
    (folder / "chroma.toml").write_text(CHROMA, encoding="utf-8")
    spanlab(lead, folder, "init", "corpus")
    spanlab(lead, folder, "labels", "import", "q.txt")
    in_child(lead, folder, lambda: add_span(folder))
    if chroma:
        spanlab(lead, folder, "eval", "chroma.toml")


def lock_file(folder: Path, end: str) -> str:
    """The name of one of Chroma's lease or build-lock files the lead's eval left."""
    found = sorted(
        p.name for p in (folder / ".spanlab" / "chroma").iterdir() if p.name.endswith(end)
    )
    assert found, end
    return f".spanlab/chroma/{found[0]}"


PLANTED = [
    (STORE, ("labels", "stats"), False),
    (f"{STORE}-wal", ("labels", "stats"), False),
    (f"{STORE}-shm", ("labels", "stats"), False),
    (".spanlab/runs.db", ("eval", "c.toml"), False),
    (".spanlab/embeddings.db", ("eval", "chroma.toml"), False),
    (".spanlab/chroma/chroma.sqlite3", ("eval", "chroma.toml"), True),
    (".lease", ("eval", "chroma.toml"), True),
    (".build-lock", ("eval", "chroma.toml"), True),
]
"""(where mallory plants a link, the lead's command, whether a first eval made the Chroma
files): each file kind of §20."""


@pytest.mark.parametrize(("name", "command", "chroma"), PLANTED)
def test_a_link_planted_where_spanlab_keeps_a_file_is_refused_naming_mallory(
    people: tuple[Account, Account, Account],
    project: Path,
    private: Path,
    name: str,
    command: tuple[str, ...],
    chroma: bool,
) -> None:
    lead, mallory, _ = people
    started(lead, project, chroma=chroma)
    name = lock_file(project, name) if name.startswith(".") and "/" not in name else name
    notes = private / "notes.txt"
    before = state(notes)
    plant(mallory, project, name, notes)
    done = as_user(lead, project, command)
    assert done.code == 2, done
    link = project / name
    # A lock file in Chroma's folder is met first by the folder's inventory or by the lock's
    # own open, as the run's path goes: either refusal names the link, its owner and target.
    ends = {IN_CHROMA, KEEPS} if chroma and not name.endswith("sqlite3") else {KEEPS}
    said = {
        f"error: {link}: a symbolic link owned by {mallory.name} (to {notes}) {e}" for e in ends
    }
    assert unwarned(done.err)[0] in said
    assert state(notes) == before  # 0600, the lead's, its text: nothing changed
    assert link.is_symlink()  # left as it is


@pytest.mark.parametrize("name", [".spanlab/runs", ".spanlab/chroma"])
def test_a_folder_mallory_links_to_the_leads_own_is_refused_not_written_in(
    people: tuple[Account, Account, Account], project: Path, private: Path, name: str
) -> None:
    lead, mallory, _ = people
    started(lead, project)
    keep = private / "keep"
    before = state(keep)
    plant(mallory, project, name, keep)
    done = as_user(lead, project, ["eval", "chroma.toml"])
    assert done.code == 2, done
    assert unwarned(done.err)[0] == (
        f"error: {project / name}: a symbolic link owned by {mallory.name} (to {keep}) is on "
        f"the way to a folder spanlab uses (real path {keep}): refused, not followed"
    )
    assert state(keep) == before  # still empty, still 0700


def test_a_fifo_in_place_of_a_chroma_lease_is_refused_at_once_not_waited_on(
    people: tuple[Account, Account, Account], project: Path
) -> None:
    lead, mallory, _ = people
    started(lead, project, chroma=True)
    name = lock_file(project, ".lease")
    plant(mallory, project, name, None)

    def eval_command() -> dict[str, Any]:
        return as_user_here(["eval", "chroma.toml"])

    # The child is killed by SIGALRM (and the test fails) if the eval waits on the FIFO.
    done = in_child(lead, project, eval_command, before=lambda: _alarm(120))
    assert done["code"] == 2, done
    said = {
        f"error: {project / name}: a FIFO owned by {mallory.name} {e}" for e in (IN_CHROMA, KEEPS)
    }
    assert unwarned(done["err"])[0] in said  # the inventory's words or the lock's own
    assert stat.S_ISFIFO(os.lstat(project / name).st_mode)


def _alarm(seconds: int) -> None:
    signal.alarm(seconds)


def as_user_here(args: list[str]) -> dict[str, Any]:
    """`spanlab ARGS` in this (child) process, as `as_user` runs it."""
    from typer.testing import CliRunner

    from labeler.cli import app

    result = CliRunner().invoke(app, args)
    return {"code": result.exit_code, "out": result.stdout, "err": result.stderr}


def test_an_account_outside_the_group_is_refused_with_the_fix(
    people: tuple[Account, Account, Account], project: Path
) -> None:
    lead, _, eve = people
    started(lead, project)
    assert modes(project, [STORE])[STORE] == f"0660 {lead.name}:{GROUP}"
    for command in (
        ["labels", "stats"],
        ["labels", "export", "/tmp/eve.json"],
        ["show", "latest", "q-0001"],
    ):
        done = as_user(eve, project, command)
        assert (done.code, done.out) == (2, ""), done
        assert done.err == (
            f"error: {project / '.spanlab'}: {eve.name} is not in group {GROUP}, which shares "
            f"this project: refused, nothing read\nhint: ask a lead to add you to group {GROUP} "
            f"(as root: `usermod -aG {GROUP} {eve.name}`), then log in again (or run `newgrp "
            f"{GROUP}`)\n"
        )
    read = in_child(eve, project, lambda: {"bytes": len((project / STORE).read_bytes())})
    assert "PermissionError" in read["err"]  # 0660: the file system keeps her out as well


def test_an_outsider_shut_out_by_2770_is_refused_with_the_fix_not_a_traceback(
    people: tuple[Account, Account, Account], project: Path
) -> None:
    """As the README sets it up (2770): eve cannot even look inside, and names the store
    from a folder of her own; the refusal names the group that shuts her out."""
    lead, _, eve = people
    started(lead, project)
    project.chmod(0o2770)
    own = Path(tempfile.mkdtemp(prefix="spanlab-eve-", dir="/tmp"))
    os.chown(own, eve.uid, eve.gid)
    try:
        args = ["--corpus", str(project / "corpus"), "--db", str(project / STORE)]
        done = as_user(eve, own, ["labels", "stats", *args])
    finally:
        shutil.rmtree(own, ignore_errors=True)
    assert (done.code, done.out) == (2, ""), done
    assert done.err.startswith(
        f"error: {project / '.spanlab'}: {eve.name} is not in group {GROUP}, which shares "
        "this project: refused, nothing read\n"
    ), done.err


def tree_modes(folder: Path) -> dict[str, str]:
    """`name -> "0660 owner:group"` for the project's spanlab.toml and all below .spanlab/."""
    names = ["spanlab.toml", ".spanlab"] + [
        str(p.relative_to(folder)) for p in sorted((folder / ".spanlab").rglob("*"))
    ]
    return modes(folder, names)


def test_a_project_made_with_init_group_gives_other_nothing_after_anyones_commands(
    people: tuple[Account, Account, Account], project: Path
) -> None:
    """The README's set-up: a folder of the lead's, not setgid, `init --group`; then the
    lead imports and evaluates, alice labels and reads. Every file spanlab made is 0660,
    every folder 2770, all the group's, whoever made it and whatever their umask."""
    lead, _, _ = people
    alice = team_member("spl19alice")
    os.chown(project, lead.uid, lead.gid)
    project.chmod(0o2770)
    os.chown(project, -1, lead.group)
    (project / "chroma.toml").write_text(CHROMA, encoding="utf-8")
    assert as_user(lead, project, ["init", "corpus", "--group", GROUP], umask=0o022).code == 0
    after_init = tree_modes(project)
    spanlab(lead, project, "labels", "import", "q.txt")
    assert "spans" in in_child(alice, project, lambda: add_span(project), umask=0o022)
    spanlab(alice, project, "labels", "stats")
    spanlab(lead, project, "eval", "chroma.toml")
    after = tree_modes(project)
    assert after_init[STORE] == f"0660 {lead.name}:{GROUP}"
    assert after_init[".spanlab"] == f"2770 {lead.name}:{GROUP}"
    assert len(after) > len(after_init) > 3
    records = {n: after.pop(n) for n in list(after) if n.startswith(".spanlab/labels.db.heads")}
    for n in [n for n in after_init if n.startswith(".spanlab/labels.db.heads")]:
        after_init.pop(n)  # each writer's own records (§21) keep modes of their own
    assert records == {
        ".spanlab/labels.db.heads": f"3770 {lead.name}:{GROUP}",
        f".spanlab/labels.db.heads/{lead.name}": f"0640 {lead.name}:{GROUP}",
        f".spanlab/labels.db.heads/{lead.name}.journal": f"0640 {lead.name}:{GROUP}",
        ".spanlab/labels.db.heads/spl19alice": f"0640 spl19alice:{GROUP}",
        ".spanlab/labels.db.heads/spl19alice.journal": f"0640 spl19alice:{GROUP}",
    }
    runs = {n: after.pop(n) for n in list(after) if n.startswith(".spanlab/runs/")}
    assert sorted(set(runs.values())) == [f"0640 {lead.name}:{GROUP}", f"2750 {lead.name}:{GROUP}"]
    for found in (after_init, after):
        assert sorted({m.split()[0] for n, m in found.items() if (project / n).is_dir()}) == [
            "2770"
        ]
        assert sorted({m.split()[0] for n, m in found.items() if (project / n).is_file()}) == [
            "0660"
        ]
        assert {m.split(":")[1] for m in found.values()} == {GROUP}


def team_member(name: str) -> Account:
    return next(a for a in accounts() if a.name == name)


def test_a_folder_setting_leading_outside_is_used_only_when_its_owner_set_it(
    people: tuple[Account, Account, Account], project: Path, private: Path
) -> None:
    """mallory rewrites the group's spanlab.toml so Chroma's folder is the lead's own
    `keep/`: refused. The lead setting it in a spanlab.toml only the lead may write: used."""
    lead, mallory, _ = people
    started(lead, project)
    keep = private / "keep"
    config = project / "spanlab.toml"

    def point_chroma_at_keep() -> dict[str, Any]:
        text = config.read_text(encoding="utf-8")
        config.write_text(
            text.replace('chroma_path = ".spanlab/chroma"', f'chroma_path = "{keep}"'),
            encoding="utf-8",
        )
        return {}

    in_child(mallory, project, point_chroma_at_keep)
    assert f'chroma_path = "{keep}"' in config.read_text(encoding="utf-8")
    before = state(keep)
    done = as_user(lead, project, ["eval", "chroma.toml"])
    assert done.code == 2, done
    assert unwarned(done.err)[0] == (
        f"error: {config}, key chroma_path: `chroma_path` leads outside the project to {keep}, "
        "and no one who owns it set it there: refused"
    )
    assert state(keep) == before
    os.chown(config, lead.uid, lead.gid)
    config.chmod(0o644)  # now only the lead may have written it
    spanlab(lead, project, "eval", "chroma.toml")
    assert (keep / "chroma.sqlite3").is_file()
