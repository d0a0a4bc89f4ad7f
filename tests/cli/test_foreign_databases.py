"""Every SQLite file spanlab opens is checked as the store is (§21): a trigger a member
plants in `runs.db` or in a shared `embeddings.db` stops the lead's eval (exit 2, naming it
and the fix) before it fires; vectors zeroed in place in a shared cache are found by their
digests and embedded again; Chroma's database may hold no trigger or view at all.

The projects here have no `[team]`, so the group shares one embedding cache file, as a
one-person project (or a group that chose no roles) always has.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labeler.core.errors import StoreError
from tests.cli.accounts import Account, accounts, in_child, more_accounts, shared_folder
from tests.cli.test_account_caches import CANDIDATES, figures, four_documents, spanlab, spans
from tests.cli.test_shared_project import embedded, warmed

__all__ = ["embedded", "warmed"]  # the module's fixtures: the hash server, warm imports

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

WIPE = "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM runs; END"
ZERO = (
    "CREATE TRIGGER zero AFTER INSERT ON embeddings BEGIN "
    "UPDATE embeddings SET vector = zeroblob(length(vector)); END"
)
CACHE = ".spanlab/embeddings.db"
EVAL = ("eval", "c.toml", "--labels", "frozen.json")


@pytest.fixture
def pair() -> tuple[Account, Account]:
    lead, _, _ = accounts()
    _, mallory, _ = more_accounts()
    return lead, mallory


@pytest.fixture
def project(pair: tuple[Account, Account]) -> Iterator[Path]:
    """A group's project without roles, labelled, frozen and evaluated once by the lead."""
    lead, _ = pair
    with shared_folder(lead.group) as folder:
        four_documents(folder)
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        spanlab(lead, folder, "init", "corpus")
        spanlab(lead, folder, "labels", "import", "q.txt")
        in_child(lead, folder, lambda: spans(folder))
        spanlab(lead, folder, "labels", "export", "frozen.json")
        spanlab(lead, folder, *EVAL, codes=(0, 1))
        yield folder


def run_sql(who: Account, folder: Path, path: Path, sql: str) -> None:
    def work() -> dict[str, Any]:
        conn = sqlite3.connect(path)
        conn.execute(sql)
        conn.commit()
        conn.close()
        return {}

    assert in_child(who, folder, work) == {}


def runs(folder: Path) -> list[Path]:
    return [p for p in (folder / ".spanlab" / "runs").iterdir() if not p.name.startswith(".")]


def rows(path: Path, sql: str) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


def test_a_trigger_in_runs_db_stops_the_leads_eval_before_it_fires(
    pair: tuple[Account, Account], project: Path
) -> None:
    lead, mallory = pair
    index = project / ".spanlab" / "runs.db"
    run_sql(mallory, project, index, WIPE)
    done = spanlab(lead, project, *EVAL, codes=(2,))
    assert f'error: {index}: the runs index holds trigger "wipe", which spanlab did not ' in done
    assert f"""sqlite3 {index} 'DROP TRIGGER "wipe"'; reading commands still work""" in done
    assert len(runs(project)) == 1
    assert rows(index, "SELECT count(*) FROM runs") == 1  # nothing fired
    shown = spanlab(lead, project, "show", "latest", "q-0001")
    assert "warning: the runs index is not used: " in shown and 'trigger "wipe"' in shown
    run_sql(lead, project, index, 'DROP TRIGGER "wipe"')
    spanlab(lead, project, *EVAL, codes=(0, 1))
    assert len(runs(project)) == 2 and rows(index, "SELECT count(*) FROM runs") == 2


def test_a_trigger_in_the_shared_cache_stops_the_leads_eval_before_it_fires(
    pair: tuple[Account, Account], project: Path
) -> None:
    lead, mallory = pair
    cache = project / CACHE
    run_sql(mallory, project, cache, ZERO)
    more = CANDIDATES + '\n[[candidate]]\nname = "c40"\nsplitter = "chars"\nsize = 40\n'
    (project / "c.toml").write_text(more, encoding="utf-8")  # new chunks: the cache is written
    done = spanlab(lead, project, *EVAL, codes=(2,))
    assert f'error: {cache}: the embedding cache holds trigger "zero", which spanlab did ' in done
    assert f"""sqlite3 {cache} 'DROP TRIGGER "zero"'""" in done
    assert (
        rows(cache, "SELECT count(*) FROM embeddings WHERE vector = zeroblob(length(vector))") == 0
    )
    assert len(runs(project)) == 1


def test_vectors_zeroed_in_the_shared_cache_are_embedded_again_and_said(
    pair: tuple[Account, Account], project: Path
) -> None:
    lead, mallory = pair
    clean = figures(project)
    cache = project / CACHE
    stored = rows(cache, "SELECT count(*) FROM embeddings")
    run_sql(mallory, project, cache, "UPDATE embeddings SET vector = zeroblob(length(vector))")
    done = spanlab(lead, project, *EVAL, codes=(0, 1))
    assert figures(project) == clean
    said = re.findall(rf"warning: {re.escape(str(cache))}: (\d+) cached vector\(s\) were changed "
                      r"outside spanlab \(their digests do not match\): not used, embedded again",
                      done)  # fmt: skip
    assert sum(int(n) for n in said) == stored, done  # once per lookup: queries, each candidate
    assert f"embeddings: {stored} embedded, 0 from the cache" in done, done
    assert (
        rows(cache, "SELECT count(*) FROM embeddings WHERE vector = zeroblob(length(vector))") == 0
    )


def test_a_trigger_in_chromas_database_is_refused_before_chroma_opens_it(tmp_path: Path) -> None:
    from evaluator.retrieval.chroma import connect

    conn = sqlite3.connect(tmp_path / "chroma.sqlite3")  # no client here: no thread to fork under
    conn.execute("CREATE TABLE embeddings (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TRIGGER gone AFTER INSERT ON embeddings BEGIN DELETE FROM embeddings; END")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError) as refused:
        connect(None, str(tmp_path))
    assert refused.value.message.startswith("""Chroma's database holds trigger "gone", which """)
    assert refused.value.hint is not None and 'DROP TRIGGER "gone"' in refused.value.hint
