"""Issue 39's steering attack with real accounts (§21): mallory, a member, writes settings
that steer into the group's spanlab.toml (in place: it is the group's) — her corpus with a
link to the lead's key, her copy of the store, her listener as Chroma, an include bomb —
and hands the lead a candidates file of hers. None of it changes what the lead's commands
read, write or call; each is named in a warning or a refusal.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labeler.core.store import Store
from tests.cli.accounts import Account, accounts, as_user, in_child, lead_holds, more_accounts
from tests.cli.test_shared_project import (  # noqa: F401  (module fixtures: the hash server, warm imports)
    CANDIDATES,
    add_span,
    embedded,
    fill,
    spanlab,
    warmed,
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- the lead's key material\n"
CHROMA = CANDIDATES.replace(
    'retriever = "lexical"', 'retriever = "chroma"\nembedding = "openai:hash"'
)
LISTENER = r"""
import socket, sys
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(16)
print(server.getsockname()[1], flush=True)
while True:
    conn, _ = server.accept()
    with open(sys.argv[1], "a") as log:
        log.write("connection\n")
    conn.close()
"""


@pytest.fixture
def people() -> tuple[Account, Account]:
    return accounts()[0], more_accounts()[1]


@pytest.fixture
def project(people: tuple[Account, Account]) -> Iterator[Path]:
    """The README's team set-up: the lead's sticky setgid folder, his spanlab.team.toml
    holding the roles and `corpus`, one question with its span."""
    lead, mallory = people
    outer = Path(tempfile.mkdtemp(prefix="spanlab-steer-", dir="/tmp"))
    try:
        folder = outer / "project"
        folder.mkdir()
        os.chown(folder, 0, lead.group)
        folder.chmod(0o2775)
        outer.chmod(0o755)
        fill(folder)
        (folder / "chroma.toml").write_text(CHROMA, encoding="utf-8")
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        spanlab(lead, folder, "init", "corpus")
        lead_holds(folder, lead, [lead.name], [mallory.name])
        spanlab(lead, folder, "labels", "import", "q.txt")
        in_child(lead, folder, lambda: add_span(folder))
        yield folder
    finally:
        shutil.rmtree(outer, ignore_errors=True)


@pytest.fixture
def secret(people: tuple[Account, Account]) -> Iterator[Path]:
    """The lead's private key, outside the project, his alone."""
    lead = people[0]
    home = Path(tempfile.mkdtemp(prefix="spanlab-lead-home-", dir="/tmp"))
    key = home / "id_rsa"
    key.write_text(SECRET, encoding="utf-8")
    for path, mode in ((key, 0o600), (home, 0o700)):
        os.chown(path, lead.uid, lead.gid)
        path.chmod(mode)
    yield key
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """mallory's listener, in a process of its own: every connection it gets is logged."""
    log = tmp_path / "connections.log"
    log.touch()
    proc = subprocess.Popen([sys.executable, "-c", LISTENER, str(log)], stdout=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        yield f"http://127.0.0.1:{proc.stdout.readline().strip()}", log
    finally:
        proc.kill()
        proc.wait()


def mallory_sets(mallory: Account, folder: Path, **settings: Any) -> None:
    """mallory rewrites the group's spanlab.toml in place with `settings` (TOML values)."""

    def edit() -> dict[str, Any]:
        path = folder / "spanlab.toml"
        kept = [line for line in path.read_text(encoding="utf-8").splitlines()
                if line.split(" = ")[0] not in settings]  # fmt: skip
        lines = [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
        with path.open("w", encoding="utf-8") as handle:  # the same file: she may write it
            handle.write("\n".join(lines + kept) + "\n")
        return {}

    in_child(mallory, folder, edit)


def test_mallorys_corpus_and_her_link_to_the_leads_key_are_never_read(
    people: tuple[Account, Account], project: Path, secret: Path
) -> None:
    lead, mallory = people

    def plant() -> dict[str, Any]:
        (project / "mc").mkdir()
        shutil.copyfile(project / "corpus" / "a.md", project / "mc" / "a.md")
        (project / "mc" / "key.md").symlink_to(secret)
        return {}

    in_child(mallory, project, plant)
    mallory_sets(mallory, project, corpus="mc", follow_symlinks=True)
    done = as_user(lead, project, ["corpus", "status"])
    assert done.code == 0, done.err
    assert "documents  1\n" in done.out  # its own a.md; 2 with the key
    assert done.err.startswith("warning: spanlab.toml sets corpus, follow_symlinks, ignored: in a "
                               "team project what steers a command")  # fmt: skip
    assert as_user(lead, project, ["eval", "c.toml"]).code == 0
    (run,) = (project / ".spanlab" / "runs").iterdir()
    written = "".join(p.read_text(encoding="utf-8") for p in run.iterdir() if p.is_file())
    assert "key.md" not in written and "key material" not in written
    assert "mc/" not in written
    assert "a.md" in written  # the run is the lead's corpus, read


def test_a_repointed_db_leaves_the_leads_commands_on_the_real_store(
    people: tuple[Account, Account], project: Path
) -> None:
    lead, mallory = people

    def copy_store() -> dict[str, Any]:
        shutil.copyfile(project / ".spanlab" / "labels.db", project / ".spanlab" / "mine.db")
        return {}

    in_child(mallory, project, copy_store)
    mallory_sets(mallory, project, db=".spanlab/mine.db")
    copy = (project / ".spanlab" / "mine.db").read_bytes()
    (project / "q2.txt").write_text("Is shipping free?\n", encoding="utf-8")
    done = as_user(lead, project, ["labels", "import", "q2.txt"])
    assert done.code == 0, done.err
    assert "warning: spanlab.toml sets db, ignored" in done.err
    assert Store.open_for_reading(project / ".spanlab" / "labels.db").count("queries") == 2
    assert (project / ".spanlab" / "mine.db").read_bytes() == copy  # hers, untouched
    assert not (project / ".spanlab" / "mine.db-wal").exists()


def test_mallorys_chroma_url_is_never_contacted(
    people: tuple[Account, Account], project: Path, listener: tuple[str, Path]
) -> None:
    lead, mallory = people
    url, log = listener
    mallory_sets(mallory, project, chroma_url=url)
    cache = as_user(lead, project, ["cache"])
    assert cache.code == 0, cache.err
    assert "warning: spanlab.toml sets chroma_url, ignored" in cache.err
    done = as_user(lead, project, ["eval", "chroma.toml"])
    assert done.code == 0, done.err
    assert (project / ".spanlab" / "chroma").is_dir()  # the lead's own, embedded
    time.sleep(0.2)
    assert log.read_text() == ""
    chosen = as_user(lead, project, ["cache", "--chroma-url", url])  # his own choice: called
    assert chosen.code == 0 and "not listed" in chosen.out, chosen
    time.sleep(0.2)
    assert log.read_text().count("connection") >= 1


def test_an_include_bomb_in_the_groups_file_costs_the_lead_nothing(
    people: tuple[Account, Account], project: Path
) -> None:
    lead, mallory = people
    mallory_sets(mallory, project, include=["**/" * 2000 + "x"])
    start = time.perf_counter()
    done = as_user(lead, project, ["corpus", "status"])
    assert time.perf_counter() - start < 10
    assert done.code == 0 and "documents  1\n" in done.out, done.err
    assert "warning: spanlab.toml sets include, ignored" in done.err


def test_mallorys_candidates_file_calls_none_of_her_servers(
    people: tuple[Account, Account], project: Path, listener: tuple[str, Path]
) -> None:
    lead, mallory = people
    url, log = listener
    rerank = CANDIDATES + f'rerank = {{ url = "{url}/rerank" }}\n'

    def write() -> dict[str, Any]:
        (project / "m.toml").write_text(rerank, encoding="utf-8")
        return {}

    in_child(mallory, project, write)
    done = as_user(lead, project, ["eval", "m.toml"])
    assert done.code == 2, done
    assert (f"error: m.toml, key candidate[1].rerank.url: candidate[1].rerank.url sets the "
            f"reranking server called, and it is another account's (owner {mallory.name}") in (
        done.err)  # fmt: skip
    time.sleep(0.2)
    assert log.read_text() == ""
    assert not (project / ".spanlab" / "runs").exists() or not any(
        (project / ".spanlab" / "runs").iterdir()
    )
