"""A poisoned cache changes no verdict (§21): in a team project each account keeps its own
embedding cache, which it alone can write, and reads only its own and the leads'.

Real accounts in one group: the lead evaluates; bob's gate reads the lead's vectors; mallory
cannot write the lead's file, poisons her own (zeroed vectors, digests recomputed, so her
own gate believes them and its figures fall) and plants it as a lead's cache and as the old
shared file. The lead's next eval, with his own cache gone, reads none of it: the same
figures as before, and the terminal names what it did not read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.runs.index import find_run
from labeler.core.store import Store
from labeler.core.values import Span
from tests.cli.accounts import (
    GROUP,
    Account,
    accounts,
    as_user,
    in_child,
    lead_holds,
    modes,
    more_accounts,
    shared_folder,
)
from tests.cli.test_shared_project import embedded, fill, warmed

__all__ = ["embedded", "warmed"]  # the module's fixtures: the hash server, warm imports

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

DOCS = {
    "refunds.md": "Refunds take thirty days after the parcel returns.\n",
    "shipping.md": "Shipping is free for orders over fifty euros.\n",
    "warranty.md": "The warranty covers defects for two years.\n",
    "support.md": "Support answers mail within one working day.\n",
}
QUESTIONS = [
    ("How long do refunds take after the parcel returns?", "refunds.md"),
    ("Is shipping free for orders over fifty euros?", "shipping.md"),
    ("How many years does the warranty cover defects?", "warranty.md"),
    ("When does support answer mail?", "support.md"),
]
CANDIDATES = """
[settings]
baseline = "c60"
k = 1
depth = 4
retriever = "exact"
embedding = "openai:hash"
tokenizer = "tok"

[[candidate]]
name = "c60"
splitter = "chars"
size = 60

[[candidate]]
name = "c25"
splitter = "chars"
size = 25
"""
CACHES = ".spanlab/embeddings"


def four_documents(folder: Path) -> None:
    """`fill`'s tokenizer and candidates file, with four documents and a question on each."""
    fill(folder)
    shutil.rmtree(folder / "corpus")
    (folder / "corpus").mkdir()
    for name, text in DOCS.items():
        (folder / "corpus" / name).write_text(text, encoding="utf-8")
    (folder / "q.txt").write_text("".join(q + "\n" for q, _ in QUESTIONS), encoding="utf-8")
    (folder / "c.toml").write_text(CANDIDATES, encoding="utf-8")


def spans(folder: Path) -> dict[str, Any]:
    """In a child: each question's evidence, its document's sentence."""
    store = Store.open(folder / ".spanlab" / "labels.db", create=False)
    for n, (_, doc) in enumerate(QUESTIONS, start=1):
        text = DOCS[doc]
        store.add_span(f"q-{n:04d}", Span.from_text(text, doc, 0, len(text) - 1), text,
                       annotator="project")  # fmt: skip
    store.close()
    return {}


@pytest.fixture
def team() -> tuple[Account, ...]:
    lead, alice, bob = accounts()
    _, mallory, _ = more_accounts()
    return lead, alice, bob, mallory


@pytest.fixture
def project(team: tuple[Account, ...]) -> Iterator[Path]:
    """The lead's team project (leads: the lead and alice), labelled and frozen."""
    lead, alice, bob, mallory = team
    with shared_folder(lead.group) as folder:
        four_documents(folder)
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        lead_holds(folder, lead, [lead.name, alice.name], [bob.name, mallory.name])
        spanlab(lead, folder, "init", "corpus")
        spanlab(lead, folder, "labels", "import", "q.txt")
        in_child(lead, folder, lambda: spans(folder))
        spanlab(lead, folder, "labels", "export", "frozen.json")
        yield folder


def spanlab(who: Account, folder: Path, *args: str, codes: tuple[int, ...] = (0,)) -> str:
    done = as_user(who, folder, args)
    assert done.code in codes, f"{who.name}: spanlab {' '.join(args)}: {done.err}"
    return done.err


COST = re.compile(r"seconds|latency|embeddings_")
"""Measures of what a run cost (time, vectors embedded or read), not of what it found."""


def figures(folder: Path) -> dict[str, Any]:
    """Every candidate's measures in the newest run's run.json, its costs left out."""
    newest = find_run(folder / ".spanlab" / "runs", None).folder / "run.json"
    run = json.loads(newest.read_text(encoding="utf-8"))
    return {name: {k: v for k, v in c["metrics"].items() if not COST.search(k)}
            for name, c in run["candidates"].items()}  # fmt: skip


def poison(path: Path) -> dict[str, Any]:
    """In a child: zero every vector and recompute its digest, as spanlab's own code would."""
    from evaluator.embedding import sealed

    conn = sqlite3.connect(path)
    conn.execute("UPDATE embeddings SET vector = zeroblob(length(vector))")
    rows = conn.execute("SELECT fingerprint, text_sha256, dim, vector FROM embeddings").fetchall()
    conn.executemany(
        "UPDATE vector_digests SET digest = ? WHERE fingerprint = ? AND text_sha256 = ?",
        [(sealed.digest(f, k, d, b), f, k) for f, k, d, b in rows],
    )
    conn.commit()
    conn.close()
    return {"rows": len(rows)}


def try_write(path: Path) -> dict[str, Any]:
    """In a child: zero the vectors of `path`; what SQLite said."""
    try:
        conn = sqlite3.connect(path)
        conn.execute("UPDATE embeddings SET vector = zeroblob(length(vector))")
        conn.commit()
    except sqlite3.Error as exc:
        return {"error": str(exc)}
    return {"error": None}


def remove(path: Path) -> dict[str, Any]:
    """In a child: remove one's own file."""
    path.unlink()
    return {}


def plant(who: Account, folder: Path, source: Path, target: Path) -> None:
    def copy() -> dict[str, Any]:
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(source, target)
        return {}

    in_child(who, folder, copy)


def test_a_poisoned_cache_changes_no_verdict_of_the_lead(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, alice, bob, mallory = team
    spanlab(lead, project, "eval", "c.toml", "--labels", "frozen.json", codes=(0, 1))
    clean = figures(project)
    own = project / CACHES / lead.name / "embeddings.db"
    assert modes(
        project, [CACHES, f"{CACHES}/{lead.name}", f"{CACHES}/{lead.name}/embeddings.db"]
    ) == {
        CACHES: f"3770 {lead.name}:{GROUP}",  # sticky: no one renames another's folder
        f"{CACHES}/{lead.name}": f"2750 {lead.name}:{GROUP}",
        f"{CACHES}/{lead.name}/embeddings.db": f"0640 {lead.name}:{GROUP}",
    }
    assert not (project / ".spanlab" / "embeddings.db").exists()
    # bob's gate reads the lead's vectors and embeds nothing
    err = spanlab(bob, project, "gate", "c.toml", "--labels", "frozen.json", codes=(0, 1))
    assert "embeddings: 0 embedded, " in err, err
    assert figures(project) == clean

    assert "readonly" in str(in_child(mallory, project, lambda: try_write(own))["error"])
    spanlab(mallory, project, "gate", "c.toml", "--labels", "frozen.json", codes=(0, 1))
    hers = project / CACHES / mallory.name / "embeddings.db"
    plant(mallory, project, own, hers)  # the lead's vectors, in her own file
    assert in_child(mallory, project, lambda: poison(hers))["rows"] > 0
    spanlab(mallory, project, "gate", "c.toml", "--labels", "frozen.json", codes=(0, 1))
    assert figures(project) != clean  # the poison works on whoever trusts that file
    plant(mallory, project, hers, project / CACHES / alice.name / "embeddings.db")
    plant(mallory, project, hers, project / ".spanlab" / "embeddings.db")

    in_child(lead, project, lambda: remove(own))
    err = spanlab(lead, project, "eval", "c.toml", "--labels", "frozen.json", codes=(0, 1))
    assert figures(project) == clean
    assert (
        f"warning: lead {alice.name}'s embedding cache is not read: "
        f"{project / CACHES / alice.name} belongs to {mallory.name}, not {alice.name}"
    ) in err, err
    assert f"note: {project / '.spanlab' / 'embeddings.db'} (the group's shared embedding" in err
    assert ", 0 from the cache" in err, err


def squat(folder: Path) -> dict[str, Any]:
    """In a child: make a folder, group-writable, where another account's cache goes."""
    folder.mkdir(parents=True)
    folder.chmod(0o2775)
    return {}


def test_a_folder_squatted_under_the_leads_name_is_not_his_cache(
    team: tuple[Account, ...], project: Path
) -> None:
    lead, _, _, mallory = team
    squatted = project / CACHES / lead.name
    in_child(mallory, project, lambda: squat(squatted))
    err = spanlab(lead, project, "eval", "c.toml", "--labels", "frozen.json", codes=(0, 1))
    assert (
        "warning: your embedding cache is not used, new vectors are not kept: "
        f"{squatted} belongs to {mallory.name}, not {lead.name}"
    ) in err, err
    assert list(squatted.iterdir()) == [] and not Path(":memory:").exists()
    clean = figures(project)
    in_child(lead, project, lambda: remove_tree(squatted))  # the lead owns .spanlab/embeddings
    spanlab(lead, project, "eval", "c.toml", "--labels", "frozen.json", codes=(0, 1))
    assert figures(project) == clean
    assert modes(project, [f"{CACHES}/{lead.name}"]) == {
        f"{CACHES}/{lead.name}": f"2750 {lead.name}:{GROUP}"
    }


def remove_tree(folder: Path) -> dict[str, Any]:
    shutil.rmtree(folder)
    return {}
