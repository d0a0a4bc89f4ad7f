"""A project a group shares (§15), with three real uids in one group: the lead inits in a
setgid folder with umask 002, bob only reads, alice writes — and no one's first open locks
out another. Each step runs in a child that became that user (tests.cli.accounts).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.chunking.tokenizers import minilm_dir
from evaluator.runs.index import find_run
from labeler.core.errors import StoreError
from labeler.core.store import Store
from labeler.core.values import Span
from tests.cli.accounts import (
    GROUP,
    Account,
    accounts,
    as_user,
    in_child,
    modes,
    shared_folder,
    warm_imports,
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

TEXT = "Refunds take 30 days.\nShipping is free over 50 EUR.\n"
STORE = ".spanlab/labels.db"
FILES = [STORE, f"{STORE}-wal", f"{STORE}-shm"]
CANDIDATES = """
[settings]
baseline = "c40"
k = 2
depth = 5
retriever = "lexical"
tokenizer = "tok"

[[candidate]]
name = "c40"
splitter = "chars"
size = 40

[[candidate]]
name = "c20"
splitter = "chars"
size = 20
"""


@pytest.fixture
def team() -> tuple[Account, ...]:
    return accounts()


def fill(folder: Path) -> None:
    """The corpus, questions and candidates, and MiniLM's tokenizer files copied beside them:
    an account may not read the test's venv (a clone in a 0700 folder, say), so nothing the
    children read comes from it; embeddings come from the hash server (`embedded`)."""
    shutil.copytree(minilm_dir(), folder / "tok")
    (folder / "corpus").mkdir()
    (folder / "corpus" / "a.md").write_text(TEXT, encoding="utf-8")
    (folder / "q.txt").write_text("How long do refunds take?\n", encoding="utf-8")
    (folder / "c.toml").write_text(CANDIDATES, encoding="utf-8")


@pytest.fixture(scope="module", autouse=True)
def embedded() -> Iterator[None]:
    """The hash embedding server in a process of its own (no thread here to fork under),
    named by SPANLAB_EMBEDDING_URL for every command and child of this module."""
    script = Path(__file__).resolve().parents[1] / "evaluator" / "embedding" / "hash_server.py"
    server = subprocess.Popen([sys.executable, str(script), "0"], stdout=subprocess.PIPE,
                              text=True)  # fmt: skip
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split()[-1]
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("SPANLAB_EMBEDDING_URL", url)
            yield
    finally:
        server.kill()
        server.wait()


@pytest.fixture(scope="module", autouse=True)
def warmed(embedded: None, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every module these tests' commands load, imported here first (tests.cli.warm_imports)."""
    folder = tmp_path_factory.mktemp("warm")
    fill(folder)
    chroma = CANDIDATES.replace(
        'retriever = "lexical"', 'retriever = "chroma"\nembedding = "openai:hash"'
    )
    (folder / "chroma.toml").write_text(chroma, encoding="utf-8")
    warm_imports(folder)


@pytest.fixture
def project(team: tuple[Account, ...]) -> Iterator[Path]:
    """A setgid folder of the group, holding a corpus everyone may read."""
    with shared_folder(team[0].group) as folder:
        fill(folder)
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        yield folder


def spanlab(who: Account, folder: Path, *args: str) -> str:
    done = as_user(who, folder, args)
    assert done.code == 0, f"{who.name}: spanlab {' '.join(args)}: {done.err}"
    return done.out


def closed(who: Account, folder: Path) -> None:
    """`who` opens and closes the store: the last connection to close checkpoints and
    removes -wal and -shm, as at the end of a command (children leave without closing)."""

    def close() -> dict[str, Any]:
        Store.open(folder / STORE, create=False).close()
        return {}

    in_child(who, folder, close)
    assert list(modes(folder, FILES)) == [STORE]


def group_rw(mode: str) -> bool:
    return int(mode.split()[0], 8) & 0o060 == 0o060


def add_span(folder: Path) -> dict[str, Any]:
    """In a child: add a span to q-0001 (the store as the annotator's app writes it)."""
    try:
        store = Store.open(folder / STORE, create=False)
        store.add_span("q-0001", Span.from_text(TEXT, "a.md", 0, 21), TEXT, annotator="alice")
        spans = len(store.query("q-0001").evidence)
    except StoreError as exc:
        return {"error": str(exc)}
    return {"spans": spans, "modes": modes(folder, FILES)}


def test_the_lead_inits_bob_reads_and_alice_writes(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, bob = team
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")
    closed(lead, project)
    after_init = modes(project, FILES)
    assert after_init[STORE] == f"0660 {lead.name}:{GROUP}"
    status = spanlab(bob, project, "corpus", "status")
    assert f"sharing    group {GROUP} (setgid folder" in status
    assert "not group-writable" not in status
    # bob's first open made the WAL and its index: his, and the group's to write.
    after_bob = modes(project, FILES)
    assert after_bob[f"{STORE}-shm"] == f"0660 {bob.name}:{GROUP}", (after_init, after_bob)
    assert all(group_rw(m) for m in after_bob.values()), after_bob
    done = in_child(alice, project, lambda: add_span(project))
    assert done.get("spans") == 1, done
    assert all(group_rw(m) for m in done["modes"].values()), done


def test_bobs_read_only_open_of_an_old_0644_store_locks_no_one_out(
    team: tuple[Account, ...], project: Path
) -> None:
    """A store made by an older spanlab (0644): bob may only read it, and what his open
    leaves (-wal, -shm) is the group's; the lead's next open gives the group the store."""
    lead, alice, bob = team
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")

    def as_older_spanlab_made_it() -> dict[str, Any]:
        os.chmod(STORE, 0o644)
        return {}

    in_child(lead, project, as_older_spanlab_made_it)

    def bob_reads() -> dict[str, Any]:
        store = Store.open(Path(STORE), create=False, read_only=True)
        return {"queries": len(store.queries()), "why": store.cannot_write()}

    read = in_child(bob, project, bob_reads)
    assert read["queries"] == 1
    assert f"labels.db (owner {lead.name}, group {GROUP}, mode 0644) is not writable" in read["why"]
    left = modes(project, FILES)
    assert all(group_rw(m) for name, m in left.items() if name != STORE), left
    refused = in_child(alice, project, lambda: add_span(project))
    assert f"ask {lead.name} (or root) to run `chmod g+rw" in refused["error"], refused
    assert "attempt to write a readonly database" in refused["error"]
    spanlab(lead, project, "corpus", "status")  # the owner's open heals the store
    assert modes(project, [STORE])[STORE] == f"0660 {lead.name}:{GROUP}"
    assert in_child(alice, project, lambda: add_span(project)).get("spans") == 1


def test_status_names_a_file_the_group_cannot_write_with_its_fix(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, _, bob = team
    spanlab(lead, project, "init", "corpus")
    (project / ".spanlab" / "runs").mkdir(mode=0o700)
    os.chown(project / ".spanlab" / "runs", lead.uid, lead.gid)
    status = spanlab(bob, project, "corpus", "status")
    runs = project / ".spanlab" / "runs"
    assert f"runs             not group-writable, not writable by you {runs}" in status
    assert f"fix: ask {lead.name} (or root) to run `chgrp {GROUP} {runs} && chmod g+rwxs" in status


def test_a_run_of_the_lead_is_shown_to_alice(team: tuple[Account, ...], project: Path) -> None:
    lead, alice, _ = team
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")
    in_child(lead, project, lambda: add_span(project))
    spanlab(lead, project, "eval", "c.toml")
    (run,) = (project / ".spanlab" / "runs").iterdir()
    assert f"{run.stat().st_mode & 0o7777:04o}" == "2750"  # the group reads, the lead writes
    assert set(modes(run, ["run.json", "report.md"]).values()) == {f"0640 {lead.name}:{GROUP}"}
    assert "q-0001" in spanlab(alice, project, "show", "latest", "q-0001")
    assert modes(project, [".spanlab/runs.db"])[".spanlab/runs.db"] == f"0660 {lead.name}:{GROUP}"


def test_init_group_shares_a_folder_that_is_not_setgid(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, bob = team
    project.chmod(0o777)  # anyone may write, nothing is inherited: only --group shares it
    os.chown(project, lead.uid, lead.gid)
    refused = as_user(lead, project, ["init", "corpus", "--group", "spl19nosuchgroup"])
    assert refused.code == 2
    assert "there is no group 'spl19nosuchgroup'" in refused.err
    assert not (project / "spanlab.toml").exists()
    spanlab(lead, project, "init", "corpus", "--group", GROUP)
    assert f'group = "{GROUP}"' in (project / "spanlab.toml").read_text(encoding="utf-8")
    assert modes(project, [".spanlab"])[".spanlab"] == f"2770 {lead.name}:{GROUP}"
    spanlab(lead, project, "labels", "import", "q.txt")
    assert f"sharing    group {GROUP}" in spanlab(bob, project, "corpus", "status")
    assert in_child(alice, project, lambda: add_span(project)).get("spans") == 1


def test_an_umask_of_077_keeps_other_out_and_the_group_in(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, _ = team
    done = as_user(lead, project, ["init", "corpus"], umask=0o077)
    assert done.code == 0, done.err
    assert modes(project, [STORE, ".spanlab"]) == {
        STORE: f"0660 {lead.name}:{GROUP}",
        ".spanlab": f"2770 {lead.name}:{GROUP}",
    }
    spanlab(lead, project, "labels", "import", "q.txt")
    assert in_child(alice, project, lambda: add_span(project), umask=0o077).get("spans") == 1


def test_a_one_person_project_stays_as_the_umask_says(tmp_path: Path) -> None:
    """Not shared (the folder is root's own): nothing gains group write."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text(TEXT, encoding="utf-8")
    done = in_child(None, tmp_path, lambda: {"out": as_root_init(tmp_path)}, umask=0o022)
    assert done["out"] == {".spanlab": "0755 root:root", STORE: "0644 root:root"}


def as_root_init(folder: Path) -> dict[str, str]:
    from typer.testing import CliRunner

    from labeler.cli import app

    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    return modes(folder, [".spanlab", STORE])


def test_exports_in_the_shared_folder_are_the_groups(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, _ = team
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")
    spanlab(alice, project, "labels", "export", "out.json")
    assert modes(project, ["out.json"]) == {"out.json": f"0660 {alice.name}:{GROUP}"}
    spanlab(lead, project, "labels", "export", "out.json")  # over alice's file: the folder's
    assert modes(project, ["out.json"]) == {"out.json": f"0660 {lead.name}:{GROUP}"}
    shutil.rmtree(project / ".spanlab")


EXACT = CANDIDATES.replace(
    'retriever = "lexical"', 'retriever = "exact"\nembedding = "openai:hash"'
)
"""The same candidates, embedded: the runs read and fill `.spanlab/embeddings.db`."""


def embedded_project(lead: Account, project: Path) -> None:
    """The lead's project with EXACT as c.toml: the corpus, the question and its span."""
    (project / "c.toml").write_text(EXACT, encoding="utf-8")
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")
    in_child(lead, project, lambda: add_span(project))


def test_a_gate_on_the_leads_read_only_cache_reads_it_and_says_so(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, _ = team
    embedded_project(lead, project)
    spanlab(lead, project, "labels", "export", "frozen.json")
    spanlab(lead, project, "eval", "c.toml", "--labels", "frozen.json")
    cache = project / ".spanlab" / "embeddings.db"
    assert modes(project, [".spanlab/embeddings.db"]) == {
        ".spanlab/embeddings.db": f"0660 {lead.name}:{GROUP}"
    }
    os.chmod(cache, 0o644)  # as an older spanlab left it
    done = as_user(alice, project, ["gate", "c.toml", "--labels", "frozen.json"])
    assert done.code in (0, 1), done.err
    assert "Traceback" not in done.err and "internal error" not in done.err
    assert "warning: embedding cache read-only, new vectors are not kept: " in done.err
    assert f"(owner {lead.name}, group {GROUP}, mode 0644) is not writable by {alice.name}" in (
        done.err
    )
    assert f"ask {lead.name} (or root) to run `chmod g+rw {cache}`" in done.err


def test_a_wal_left_by_an_older_spanlab_is_named_with_its_owner_and_fix(
    team: tuple[Account, ...], project: Path
) -> None:
    """The issue's lock-out: bob's first open (under an older spanlab, whose store was
    0644) left bob-owned 0644 -wal/-shm; alice's write names them, not the folder."""
    lead, alice, bob = team
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")
    closed(lead, project)
    os.chmod(project / STORE, 0o644)

    def old_spanlab_reads() -> dict[str, Any]:
        conn = sqlite3.connect(STORE)  # no helper: SQLite's own modes
        return {"queries": conn.execute("SELECT count(*) FROM queries").fetchone()[0]}

    assert in_child(bob, project, old_spanlab_reads) == {"queries": 1}
    os.chmod(project / STORE, 0o664)
    assert modes(project, FILES)[f"{STORE}-wal"] == f"0644 {bob.name}:{GROUP}"
    refused = in_child(alice, project, lambda: add_span(project))
    wal, shm = project / f"{STORE}-wal", project / f"{STORE}-shm"
    assert f"{wal} (owner {bob.name}, group {GROUP}, mode 0644) is not writable" in refused["error"]
    assert f"ask {bob.name} (or root) to run `chmod g+rw {wal}`" in refused["error"]
    report = json.loads(spanlab(alice, project, "corpus", "status", "--json"))["sharing"]
    assert report["group"] == GROUP
    bad = {f["what"]: f["fix"] for f in report["files"] if "fix" in f}
    assert bad == {
        "store -wal": f"ask {bob.name} (or root) to run `chmod g+rw {wal}`",
        "store -shm": f"ask {bob.name} (or root) to run `chmod g+rw {shm}`",
    }
    spanlab(bob, project, "corpus", "status")  # bob's next open gives the group his files
    assert in_child(alice, project, lambda: add_span(project)).get("spans") == 1


def test_the_leads_chroma_folder_is_the_groups_and_a_locked_one_is_named(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, _ = team
    chroma = CANDIDATES.replace(
        'retriever = "lexical"', 'retriever = "chroma"\nembedding = "openai:hash"'
    )
    (project / "c.toml").write_text(chroma, encoding="utf-8")
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")
    in_child(lead, project, lambda: add_span(project))
    spanlab(lead, project, "eval", "c.toml")
    folder = project / ".spanlab" / "chroma"
    made = [p for p in folder.rglob("*") if p.is_file() or p.is_dir()]
    assert made and (folder / "chroma.sqlite3") in made
    assert all(p.stat().st_gid == lead.group for p in [folder, *made])
    assert all(p.stat().st_mode & 0o060 == 0o060 for p in [folder, *made]), [
        f"{p.name} {p.stat().st_mode & 0o7777:04o}" for p in made
    ]
    spanlab(alice, project, "eval", "c.toml")  # reuses the lead's collections, writing
    os.chmod(folder / "chroma.sqlite3", 0o644)  # as an older spanlab left it
    done = as_user(alice, project, ["eval", "c.toml"])
    assert done.code == 2, done.err
    db = folder / "chroma.sqlite3"
    assert f"{db}: Chroma cannot write: " in done.err
    assert f"ask {lead.name} (or root) to run `chmod g+rw {db}`" in done.err


def test_a_runs_index_the_lead_left_unwritable_does_not_stop_alices_run(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, _ = team
    spanlab(lead, project, "init", "corpus")
    spanlab(lead, project, "labels", "import", "q.txt")
    in_child(lead, project, lambda: add_span(project))
    spanlab(lead, project, "eval", "c.toml")
    index = project / ".spanlab" / "runs.db"
    os.chmod(index, 0o644)  # as an older spanlab left it
    done = as_user(alice, project, ["eval", "c.toml"])
    assert done.code == 0, done.err
    assert f"warning: {index}: the runs index was not updated" in done.err
    assert f"ask {lead.name} (or root) to run `chmod g+rw {index}`" in done.err
    mine = [r.name for r in (project / ".spanlab" / "runs").iterdir() if r.owner() == alice.name]
    assert len(mine) == 1
    runs = project / ".spanlab" / "runs"
    latest = in_child(alice, project, lambda: {"id": find_run(runs, "latest").id})
    assert latest == {"id": mine[0]}  # listed from the folders: the index could not be written


def test_status_tells_a_user_outside_the_group_to_join_it_not_to_chmod(
    team: tuple[Account, ...], project: Path
) -> None:
    """trial of issue 19: an account not in the group was told to `chmod g+rw` files that
    were group-writable already; the fix is to add the account to the group."""
    lead, alice, _ = team
    spanlab(lead, project, "init", "corpus")
    outside = Account(alice.name, alice.uid, alice.gid, group=alice.gid)  # not in GROUP
    status = as_user(outside, project, ["corpus", "status"])  # §20: refused up front
    assert status.code == 2, status
    assert status.err == (
        f"error: {project / '.spanlab'}: {alice.name} is not in group {GROUP}, which shares this "
        f"project: refused, nothing read\nhint: ask a lead to add you to group {GROUP} (as root: "
        f"`usermod -aG {GROUP} {alice.name}`), then log in again (or run `newgrp {GROUP}`)\n"
    )
    assert "chmod" not in status.err
