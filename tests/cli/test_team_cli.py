"""`spanlab labels assign | agreement` and the blind-mode setting (§3, §11)."""

from __future__ import annotations

from pathlib import Path

from labeler.core import config
from labeler.core.errors import ConfigError
from labeler.core.store import Store
from tests.cli.test_cli import DB, initialised, run, workdir

__all__ = ["workdir"]  # the fixture, used by name


def test_assign_round_robin_prints_each_queue(workdir: Path) -> None:
    initialised(workdir)
    done = run("labels", "assign", "alice", "bob", "--copies", "2", "--annotator", "lead")
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "alice: 3 queries\nbob: 3 queries\n"
    assert "assigned 6 new" in done.stderr
    store = Store.open(DB, create=False)
    assert store.queue("bob") == ["q-0001", "q-0002", "q-0003"]


def test_assign_of_an_empty_slice_exits_2_and_writes_nothing(workdir: Path) -> None:
    initialised(workdir)
    done = run("labels", "assign", "alice", "--slice", "nope")
    assert done.exit_code == 2
    assert "no queries in slice 'nope'" in done.stderr
    assert Store.open(DB, create=False).assigned() == {}


def test_blind_is_a_project_setting(tmp_path: Path) -> None:
    (tmp_path / "spanlab.toml").write_text('corpus = "c"\nblind = true\n', encoding="utf-8")
    assert config.load(tmp_path).blind is True
    (tmp_path / "spanlab.toml").write_text('blind = "yes"\n', encoding="utf-8")
    try:
        config.load(tmp_path)
    except ConfigError as exc:
        assert exc.message == "'blind' must be true or false"
    else:
        raise AssertionError("a string for blind was accepted")
