"""A member's power is over her own files (design §21), applied to the lead's finished run:
a shared run folder was the group's (2770) and its files 0660, so mallory could rewrite the
lead's run.json in place, or remove it and put her own under its name, and every later
`show`, `diff`, triage and `gate --against` of that run reads her figures as the lead's.
A finished run is now the group's to read only: files 0640, folder 2750.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.accounts import Account, in_child
from tests.cli.test_shared_project import embedded, spanlab, warmed
from tests.cli.test_team_whole import guided, keep, label, people, runs

__all__ = ["embedded", "guided", "people", "warmed"]  # fixtures, used by name

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root (CI is)")


def tamper(run: Path) -> dict[str, Any]:
    """mallory: what she can do to the lead's run.json, in place and by replacing it."""
    done = {}
    try:
        with open(run / "run.json", "r+b") as handle:
            handle.seek(0, os.SEEK_END)
        done["in-place"] = "writable"
    except OSError as exc:
        done["in-place"] = type(exc).__name__
    try:
        os.rename(run / "run.json", run / ".gone")
        done["replace"] = "renamed"
    except OSError as exc:
        done["replace"] = type(exc).__name__
    return done


def test_mallory_can_neither_rewrite_nor_replace_the_leads_shared_run(
    people: tuple[Account, ...], guided: Path
) -> None:
    lead, alice, bob, _, mallory = people
    spanlab(lead, guided, "labels", "import", "q.txt")
    spanlab(lead, guided, "labels", "assign", alice.name, bob.name, "--copies", "2")
    in_child(alice, guided, lambda: label(guided, alice.name, 0, 21))
    in_child(bob, guided, lambda: label(guided, bob.name, 6, 20))
    in_child(lead, guided, lambda: keep(guided, lead.name, alice.name))
    spanlab(lead, guided, "eval", "c.toml")
    (run,) = runs(guided)
    assert f"{run.stat().st_mode & 0o7777:04o}" == "2750"  # decided: the group reads it
    got = in_child(mallory, guided, lambda: tamper(run))
    assert got == {"in-place": "PermissionError", "replace": "PermissionError"}
