"""A rollback with the writers' records moved away (design §21), with real accounts: `.spanlab`
is the group's (2770, not sticky), so mallory can rename `labels.db.heads` out of the way
before she writes her old copy back into the store. The lead's next write must still refuse
naming the state, not build on the rolled-back store as if nothing happened.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.accounts import Account, as_user, in_child
from tests.cli.test_rollback_named import STORE, counts, people, roll_back, saved
from tests.cli.test_shared_project import embedded, warmed

__all__ = ["embedded", "people", "saved", "warmed"]  # fixtures, used by name

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")


def move_records(folder: Path) -> dict[str, Any]:
    """mallory: the records' folder renamed into her own folder (a rename needs only the
    group's write on `.spanlab`), then her old store's bytes written into the store."""
    heads = folder / f"{STORE}.heads"
    os.rename(heads, folder / "mallory" / "records")
    return roll_back(folder, "in-place")


def make_folder(path: Path) -> dict[str, Any]:
    path.mkdir()
    return {}


@pytest.mark.parametrize("kept", [False, True])
def test_records_moved_away_and_a_rollback_still_refuse_the_leads_writes(
    people: tuple[Account, Account, Account], saved: Path, kept: bool
) -> None:
    lead, _, mallory = people
    got = in_child(mallory, saved, lambda: move_records(saved))
    assert got == {}, got
    if kept:  # she leaves an empty folder of her own in its place
        in_child(mallory, saved, lambda: make_folder(saved / f"{STORE}.heads"))
    assert counts(saved)[:2] == (1, 0)
    stats = as_user(lead, saved, ["labels", "stats"])
    assert stats.code == 0, stats.err
    assert "it was replaced or rolled back" in stats.err, stats.err
    (saved / "late.txt").write_text("Late?\n", encoding="utf-8")
    done = as_user(lead, saved, ["labels", "import", "late.txt"])
    assert done.code == 2, done.err
    assert f"{lead.name}'s records are gone from " in done.err
    assert "the records were moved or removed" in done.err and "nothing was written" in done.err
    assert counts(saved)[:2] == (1, 0)
    refused = as_user(mallory, saved, ["labels", "restore", "--forget-gone"])
    assert refused.code == 2 and "forgetting writers' records that are gone is for leads" in (
        refused.err
    ), refused.err
    forgot = as_user(lead, saved, ["labels", "restore", "--forget-gone"])
    assert forgot.code == 0, forgot.err
    assert forgot.out.startswith(f"forgot the writes of {lead.name}: their records are gone")
    again = as_user(lead, saved, ["labels", "import", "late.txt"])
    assert again.code == 0, again.err
    warned = [line for line in again.err.splitlines() if line.startswith("warning: ")]
    folder = saved / f"{STORE}.heads"
    assert warned == ([f"warning: {folder} is owned by {mallory.name}, not by the owner of "
                       f"{folder.parent} ({lead.name}): its records could be replaced",
                       f"warning: {folder} is not sticky: a member could replace another's "
                       f"record (fix: chmod +t {folder})"] if kept else [])  # fmt: skip
    assert counts(saved)[:2] == (2, 0)
