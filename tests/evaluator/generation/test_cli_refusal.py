"""A hostile `[generation]` stops `spanlab gate` before any work: exit 2, the file and the
key named, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from tests.cli.test_budget_inputs import CANDS
from tests.cli.test_hostile_inputs import dump
from tests.cli.test_hostile_inputs import project as project  # the fixture

GOOD = ('url = "http://127.0.0.1:9/v1"\nmodel = "m"\ntemplate = "t.txt"\n'
        'abstention = "NOPE"\n')  # fmt: skip
CASES = [
    ("temperature = 0.7\n", "key generation.temperature", "temperature must be 0"),
    ('key_env = "A B"\n', "key generation.key_env", "environment variable"),
    ("max_tokens = -5\n", "key generation.max_tokens", "max_tokens must be 1 to"),
    ("stream = true\n", "key generation.stream", "unknown key 'stream'"),
]


@pytest.fixture
def templated(project: Path) -> Path:
    """The hostile-inputs project with a prompt template beside it."""
    template = project / "t.txt"
    template.write_text("{{sources}}\n{{question}}\nelse say NOPE\n", "utf-8")
    template.chmod(0o644)
    return project


@pytest.mark.parametrize(("line", "key", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_generation_value_exits_2_naming_the_key(
    templated: Path, line: str, key: str, words: str
) -> None:
    before = dump(templated)()
    table = "\n[generation]\n" + GOOD + line
    (templated / "in.toml").write_text(CANDS.format(extra="", gates=table), "utf-8")
    done = CliRunner().invoke(app, ["gate", "in.toml", "--labels", "labels.json"])
    assert done.exit_code == 2, (done.output, done.exception)
    assert "Traceback" not in done.output
    assert key in done.stderr and words in done.stderr and "in.toml" in done.stderr
    assert dump(templated)() == before


def test_a_good_table_against_no_server_is_counted_not_raised(templated: Path) -> None:
    """Port 9 answers nothing: the run completes, the first prompt is counted unreachable and
    the rest not asked (a server that is down costs one question), no traceback."""
    table = "\n[generation]\n" + GOOD + "timeout = 1\n"
    (templated / "in.toml").write_text(CANDS.format(extra="", gates=table), "utf-8")
    done = CliRunner().invoke(app, ["gate", "in.toml", "--labels", "labels.json"])
    assert done.exit_code in (0, 1), (done.output, done.exception)
    assert "Traceback" not in done.output
    said = "answers: 0 asked, 0 from the cache, 0 refused, 2 failed (not asked 1, unreachable 1)"
    assert said in done.stdout
