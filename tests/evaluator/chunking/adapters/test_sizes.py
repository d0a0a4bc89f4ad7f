"""A library's chunk size below 1 is refused before any work, naming the candidate and the
key: semchunk recursed until RecursionError on `chunk_size = 0`, others failed mid-run."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.chunking import SplitterSpec
from evaluator.chunking.adapters.registry import LIBRARY_SPLITTERS
from labeler.cli import app
from labeler.core.errors import ConfigError

SIZED = [
    (name, entry.size_option) for name, entry in LIBRARY_SPLITTERS.items() if entry.size_option
]


@pytest.mark.parametrize("size", [0, -3])
@pytest.mark.parametrize(("splitter", "option"), SIZED, ids=[s for s, _ in SIZED])
def test_a_size_below_one_is_refused_naming_candidate_and_key(
    splitter: str, option: str, size: int
) -> None:
    options: dict[str, object] = {option: size}
    if splitter == "semchunk":
        options["tokenizer_or_token_counter"] = "character"
    with pytest.raises(ConfigError) as caught:
        SplitterSpec(splitter, 0, options=options).validate("lib")
    assert caught.value.key == f"options.{option}"
    assert f"candidate 'lib': option '{option}' must be at least 1, got {size}" in (
        caught.value.message
    )


def test_semchunk_chunk_size_0_is_exit_2_through_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(
        '[settings]\nbaseline = "s0"\n[[candidate]]\nname = "s0"\nsplitter = "semchunk"\n'
        '[candidate.options]\nchunk_size = 0\ntokenizer_or_token_counter = "character"\n',
        "utf-8",
    )
    done = CliRunner().invoke(app, ["gate", str(tmp_path / "c.toml"), "--labels", "x.json"])
    assert done.exit_code == 2
    assert "key options.chunk_size: candidate 's0': option 'chunk_size' must be at least 1" in (
        done.stderr
    )
    assert "Traceback" not in done.output
