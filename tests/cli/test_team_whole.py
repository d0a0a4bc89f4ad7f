"""One team project laid out as docs/guide/team.md says (design §21), with a lead, two
annotators, carol added later and mallory: the issue-39 pieces (steering rule, per-account
caches, private runs, writer heads, restore) held together in ONE project, end to end.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labeler.core.store import Store
from labeler.core.values import Span
from tests.cli.accounts import (
    Account,
    accounts,
    as_user,
    in_child,
    more_accounts,
    shared_folder,
)
from tests.cli.test_rollback_named import copied_then_moved_on, counts, roll_back
from tests.cli.test_shared_project import EXACT, embedded, fill, spanlab, warmed

__all__ = ["embedded", "warmed"]

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")

STORE = ".spanlab/labels.db"
TEXT = "Refunds take 30 days.\nShipping is free over 50 EUR.\n"


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "team.md"


def guide_team_file(lead: str, annotators: list[str]) -> str:
    """The team file exactly as docs/guide/team.md's set-up's `printf` writes it."""
    line = next(x for x in GUIDE.read_text(encoding="utf-8").splitlines()
                if x.startswith("printf '") and "spanlab.team.toml" in x)  # fmt: skip
    fmt = line.split("'")[1]
    text = subprocess.run(["printf", fmt], capture_output=True, text=True, check=True).stdout
    named = json.dumps(annotators)
    return text.replace('["lead"]', f'["{lead}"]').replace('["alice", "bob"]', named)


@pytest.fixture
def people() -> tuple[Account, ...]:
    lead, alice, bob = accounts()
    carol, mallory, _ = more_accounts()
    return lead, alice, bob, carol, mallory


@pytest.fixture
def guided(people: tuple[Account, ...]) -> Iterator[Path]:
    lead, alice, bob, _, mallory = people
    with shared_folder(lead.group) as folder:
        fill(folder)
        (folder / "c.toml").write_text(EXACT, encoding="utf-8")
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        os.chown(folder, lead.uid, lead.group)
        folder.chmod(0o3770)
        spanlab(lead, folder, "init", "corpus")
        team = folder / "spanlab.team.toml"
        team.write_text(guide_team_file(lead.name, [alice.name, bob.name, mallory.name]),
                        encoding="utf-8")  # fmt: skip
        os.chown(team, lead.uid, lead.group)
        team.chmod(0o644)
        yield folder


def label(folder: Path, who: str, start: int, end: int) -> dict[str, Any]:
    store = Store.open(folder / STORE, create=False)
    store.view = who
    store.add_span("q-0001", Span.from_text(TEXT, "a.md", start, end), TEXT, annotator=who)
    return {}


def keep(folder: Path, lead: str, whose: str) -> dict[str, Any]:
    store = Store.open(folder / STORE, create=False)
    store.view = lead
    seen = store.query("q-0001").revision
    store.adjudicate("q-0001", "keep", annotator=lead, seen=seen, keep=[whose])
    return {}


def runs(folder: Path) -> list[Path]:
    return sorted(p for p in (folder / ".spanlab" / "runs").iterdir() if p.is_dir())


def test_a_project_set_up_as_the_guide_says_works_for_every_role_and_restores(
    people: tuple[Account, ...], guided: Path
) -> None:
    lead, alice, bob, _, mallory = people
    f = guided
    spanlab(lead, f, "labels", "import", "q.txt")
    spanlab(lead, f, "labels", "assign", alice.name, bob.name, "--copies", "2")
    assert in_child(alice, f, lambda: label(f, alice.name, 0, 21)) == {}
    assert in_child(bob, f, lambda: label(f, bob.name, 6, 20)) == {}
    waiting = as_user(lead, f, ["eval", "c.toml"])  # both versions wait: no evidence counts
    assert waiting.code == 0, waiting.err
    (first,) = runs(f)
    for who in (alice, bob):  # nothing of the other's version in the lead's run
        text = json.dumps(in_child(who, f, lambda: {"t": (first / "run.json").read_text()}))
        assert "6, 20" not in text.replace('"end": ', "") and "take 30 days" not in text
    assert in_child(lead, f, lambda: keep(f, lead.name, alice.name)) == {}
    spanlab(lead, f, "labels", "export", "frozen.json")
    done = as_user(lead, f, ["eval", "c.toml", "--labels", "frozen.json"])
    assert done.code == 0 and "warning" not in done.err, done.err
    assert done.err.endswith(f"5 from the cache ({f}/.spanlab/embeddings/{lead.name}/"
                             "embeddings.db)\n"), done.err  # fmt: skip
    shown = as_user(alice, f, ["show", "latest", "q-0001"])
    assert shown.code == 0 and "evidence e1: a.md 0..21 (21 ch)" in shown.out, shown.err
    gated = as_user(bob, f, ["gate", "c.toml", "--labels", "frozen.json"])
    assert gated.code == 0 and gated.out.startswith("PASS  every gate holds"), gated.err
    assert "embeddings: 0 embedded, 6 from the cache" in gated.err, gated.err  # the lead's
    copied_then_moved_on(f, lead, mallory)
    before = counts(f)
    in_child(mallory, f, lambda: roll_back(f, "in-place"))
    assert counts(f)[0] == 1
    again = as_user(lead, f, ["eval", "c.toml", "--labels", "frozen.json"])  # reads no store
    assert again.code == 0 and f"warning: the store lacks {lead.name}'s last 1 write" in (
        again.err
    ), again.err
    assert f"note: {runs(f)[-1]} is yours alone (mode 2700)" in again.err.replace("\n", " ")
    assert as_user(lead, f, ["labels", "stats"]).err.startswith(
        f"warning: the store lacks {lead.name}'s last 1 write"
    )
    restored = as_user(lead, f, ["labels", "restore"])
    assert restored.code == 0 and restored.out.startswith(
        f"restored 1 write of {lead.name} (seq "
    ), restored.err
    assert counts(f)[:2] == before[:2] == (3, 2)
    final = as_user(lead, f, ["eval", "c.toml", "--labels", "frozen.json"])
    assert final.code == 0 and "warning" not in final.err, final.err
