"""The rule of labeler.core.team.authority (§20), on files made in the test's own folder: which
file's `[team]` and `blind` count, and the refusal, naming the file, when none may."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from labeler.core.errors import ConfigError
from labeler.core.project import config
from labeler.core.team.roles import Act, TeamRefusal, member

TEAM = '[team]\nleads = ["lead"]\nannotators = ["ann"]\n'


def test_a_one_person_spanlab_toml_grants_what_it_says(tmp_path: Path) -> None:
    (tmp_path / "spanlab.toml").write_text(f"blind = true\n{TEAM}", encoding="utf-8")
    (tmp_path / "spanlab.toml").chmod(0o644)
    proj = config.load(tmp_path)
    assert (proj.blind, proj.distrust, proj.authority) == (True, None, tmp_path / "spanlab.toml")
    assert proj.team is not None and proj.team.leads == ("lead",)


def test_a_group_writable_spanlab_toml_claims_roles_nobody_gets(tmp_path: Path) -> None:
    path = tmp_path / "spanlab.toml"
    path.write_text(f"blind = false\n{TEAM}", encoding="utf-8")
    path.chmod(0o664)
    proj = config.load(tmp_path)
    assert proj.team is None and proj.blind is True and proj.distrust is not None
    lead = member(proj.team, None, "lead", distrust=proj.distrust)
    assert lead.lead is False
    with pytest.raises(TeamRefusal) as info:
        lead.require(Act.LABEL)
    assert info.value.message == (
        f"[team] and blind do not count: {path} (owner root, group root, mode 0664) is "
        "writable by its group or others; labelling needs roles that count"
    )
    assert f"chmod 644 {tmp_path}/spanlab.team.toml" in (info.value.hint or "")


def test_the_team_file_wins_and_spanlab_toml_keeps_no_copy(tmp_path: Path) -> None:
    (tmp_path / "spanlab.toml").write_text('corpus = "c"\n', encoding="utf-8")
    (tmp_path / "spanlab.team.toml").write_text(f"blind = true\n{TEAM}", encoding="utf-8")
    (tmp_path / "spanlab.team.toml").chmod(0o644)
    proj = config.load(tmp_path)
    assert proj.blind is True and proj.authority == tmp_path / "spanlab.team.toml"
    assert member(proj.team, None, "lead").lead is True
    config.write(proj)
    assert "team" not in (tmp_path / "spanlab.toml").read_text(encoding="utf-8")
    assert "blind" not in (tmp_path / "spanlab.toml").read_text(encoding="utf-8")


def test_a_fifo_for_a_team_file_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "spanlab.team.toml", 0o644)
    proj = config.load(tmp_path)
    assert proj.distrust is not None and proj.blind is True
    assert "is a FIFO (named pipe), not a regular file" in proj.distrust.why


def test_a_team_file_holds_team_blind_and_the_steering_keys_only(tmp_path: Path) -> None:
    (tmp_path / "spanlab.team.toml").write_text("trim_spans = false\n", encoding="utf-8")
    (tmp_path / "spanlab.team.toml").chmod(0o644)
    with pytest.raises(ConfigError, match="unknown key 'trim_spans'"):
        config.load(tmp_path)
