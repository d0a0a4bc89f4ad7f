"""Three Unix accounts in one group, and a spanlab command run as one of them (§15).

Made as a team makes them: `groupadd` / `useradd` (idempotent, names only these tests
use), so owners and the group have names. A command runs in a forked child that imports
nothing new after it switches to the account's uid, gid and groups with umask 002.
"""

from __future__ import annotations

import contextlib
import grp
import importlib
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from labeler.cli import app

GROUP = "spl19labelers"
"""The sharing group of the tests."""
NAMES = ("spl19lead", "spl19alice", "spl19bob")
"""The lead and two annotators."""
MORE = ("spl19carol", "spl19mallory")
"""A member who joins later, and a member who attacks the others (§20); both in GROUP."""
OUTSIDER = "spl19eve"
"""An account on the machine that is not in GROUP (§20: outsiders are out)."""


@dataclass(frozen=True)
class Account:
    name: str
    """The login name."""
    uid: int
    """Its user id."""
    gid: int
    """Its primary group (its own, as useradd makes it)."""
    group: int
    """The shared group's id, a supplementary group of the account."""


@dataclass(frozen=True)
class Done:
    code: int
    """The exit code."""
    out: str
    """What went to stdout."""
    err: str
    """What went to stderr."""


def accounts() -> tuple[Account, ...]:
    """The lead, alice and bob, each in GROUP (created when missing)."""
    if shutil.which("useradd") is None:
        raise RuntimeError("useradd is not installed: the shared-project tests need it")
    _run("groupadd", "-f", GROUP)
    for name in NAMES:
        try:
            pwd.getpwnam(name)
        except KeyError:
            _run("useradd", "--no-create-home", "--user-group", "-G", GROUP, name)
    shared = grp.getgrnam(GROUP).gr_gid
    return tuple(Account(n, pwd.getpwnam(n).pw_uid, pwd.getpwnam(n).pw_gid, shared) for n in NAMES)


def more_accounts() -> tuple[Account, Account, Account]:
    """carol and mallory (in GROUP) and eve (not in it; her `group` is her own group)."""
    accounts()
    for name in MORE:
        try:
            pwd.getpwnam(name)
        except KeyError:
            _run("useradd", "--no-create-home", "--user-group", "-G", GROUP, name)
    try:
        pwd.getpwnam(OUTSIDER)
    except KeyError:
        _run("useradd", "--no-create-home", "--user-group", OUTSIDER)
    shared = grp.getgrnam(GROUP).gr_gid
    carol, mallory = (
        Account(n, pwd.getpwnam(n).pw_uid, pwd.getpwnam(n).pw_gid, shared) for n in MORE
    )
    own = pwd.getpwnam(OUTSIDER).pw_gid
    return carol, mallory, Account(OUTSIDER, pwd.getpwnam(OUTSIDER).pw_uid, own, own)


def _run(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True)


@contextmanager
def shared_folder(group: int) -> Iterator[Path]:
    """A setgid folder of `group`, mode 2775, somewhere every account can reach."""
    folder = Path(tempfile.mkdtemp(prefix="spanlab-shared-", dir="/tmp"))
    try:
        project = folder / "project"
        project.mkdir()
        os.chown(project, 0, group)
        project.chmod(0o2775)
        folder.chmod(0o755)
        yield project
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def as_user(who: Account, cwd: Path, args: Sequence[str], *, umask: int = 0o002) -> Done:
    """`spanlab ARGS` run by `who` in `cwd`, in a child process."""

    def command() -> dict[str, Any]:
        result = CliRunner().invoke(app, list(args))
        crash = result.exception
        err = result.stderr + ("" if isinstance(crash, SystemExit | None) else repr(crash))
        return {"code": result.exit_code, "out": result.stdout, "err": err}

    data = in_child(who, cwd, command, umask=umask)
    return Done(int(data["code"]), str(data["out"]), str(data["err"]))


def warm_imports(folder: Path) -> None:
    """Import what `tests.cli.warm_imports` loads running the commands in `folder` (in a
    root subprocess, so no thread starts here), before any child drops its uid."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.cli.warm_imports", str(folder)],
        capture_output=True, text=True, timeout=600, check=True,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    for name in json.loads(done.stdout.splitlines()[-1]):
        if name not in sys.modules and name != "__main__":
            with contextlib.suppress(Exception):
                importlib.import_module(name)


def in_child(
    who: Account | None,
    cwd: Path,
    work: Callable[[], dict[str, Any]],
    *,
    umask: int = 0o002,
    before: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """`work()` run by `who` (None: root) in `cwd` in a forked child; its JSON-able result.
    `before` runs in the child first, still as root (a resource limit, say)."""
    _warm_codecs()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: become `who`, work, report, leave
        os.close(reader)
        try:
            if before is not None:
                before()
            if who is not None:
                os.setgroups([who.group])
                os.setgid(who.gid)
                os.setuid(who.uid)
                os.environ.update(USER=who.name, LOGNAME=who.name, HOME=str(cwd))
            os.umask(umask)
            os.chdir(cwd)
            payload = work()
        except BaseException as exc:  # reported to the parent, which fails
            payload = {"code": -1, "out": "", "err": f"child failed: {exc!r}"}
        with os.fdopen(writer, "w") as out:
            json.dump(payload, out)
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as got:
        data: dict[str, Any] = json.load(got)
    os.waitpid(pid, 0)
    return data


CODECS = ("utf-8", "utf-8-sig", "utf-16-le", "utf-16", "latin-1", "ascii")
"""Codecs spanlab's readers and writers name (doccano's and Argilla's offsets count UTF-16
units): looked up before a fork, as a child that became another account may not read a
Python installed in root's home (pyenv) to load one."""


def _warm_codecs() -> None:
    for name in CODECS:
        "".encode(name)


def modes(folder: Path, names: Sequence[str]) -> dict[str, str]:
    """`name -> "0664 spl19alice:spl19labelers"` for each name present below `folder`."""
    found = {}
    for name in names:
        path = folder / name
        if path.exists():
            st = path.stat()
            owner, group = pwd.getpwuid(st.st_uid).pw_name, grp.getgrgid(st.st_gid).gr_name
            found[name] = f"{st.st_mode & 0o7777:04o} {owner}:{group}"
    return found


def lead_holds(
    project: Path,
    lead: Account,
    leads: Sequence[str],
    annotators: Sequence[str],
    *,
    blind: bool = False,
    settings: str = 'corpus = "corpus"\n',
) -> Path:
    """The roles as a lead keeps them (§20): `spanlab.team.toml`, the lead's, mode 0644, in
    the project folder the lead owns, sticky (3775) so no member replaces the file; with
    the settings that steer (§21: `corpus`, as the README's set-up writes it)."""
    os.chown(project, lead.uid, lead.group)
    project.chmod(0o3775)
    path = project / "spanlab.team.toml"
    head = settings + ("blind = true\n" if blind else "")
    path.write_text(f"{head}[team]\nleads = {json.dumps(list(leads))}\n"
                    f"annotators = {json.dumps(list(annotators))}\n", encoding="utf-8")  # fmt: skip
    os.chown(path, lead.uid, lead.group)
    path.chmod(0o644)
    return path


def unwarned(err: str) -> list[str]:
    """stderr's lines without the warning every command of a group project with no team file
    gives about its group-writable spanlab.toml (§21), so a test reads what it is about."""
    return [
        line
        for line in err.splitlines()
        if not (line.startswith("warning: spanlab.toml sets ") and "may write it" in line)
    ]
