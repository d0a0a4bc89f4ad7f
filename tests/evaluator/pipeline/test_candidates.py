"""The candidates file is validated completely before any work, naming candidate and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.candidates import read
from labeler.core.errors import ConfigError

GOOD = """
[settings]
baseline = "w10"
k = 3
retriever = "lexical"

[[candidate]]
name = "w10"
splitter = "words"
size = 10
overlap = 2

[[candidate]]
name = "c80"
splitter = "chars"
size = 80

[gates]
max_lost = 1
[gates.slice.critical]
max_lost = 0
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "candidates.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_good_file_parses_with_settings_candidates_and_gates(tmp_path: Path) -> None:
    cfile = read(write(tmp_path, GOOD))
    assert cfile.settings.baseline == "w10"
    assert cfile.settings.k == 3
    assert cfile.settings.depth == 50
    assert [c.name for c in cfile.candidates] == ["w10", "c80"]
    assert cfile.candidate("w10").spec.overlap == 2
    assert cfile.gates.overall == {"max_lost": 1.0}
    assert cfile.gates.slices == {"critical": {"max_lost": 0.0}}
    assert cfile.hash.startswith("sha256:")
    assert cfile.settings.match == "chunk"
    union = read(write(tmp_path, GOOD.replace("k = 3", 'k = 3\nmatch = "union"')))
    assert union.settings.match == "union"


@pytest.mark.parametrize(
    ("old", "new", "key", "words"),
    [
        ("overlap = 2", "overlap = 10", "overlap", "'w10'"),
        ('splitter = "chars"', 'splitter = "paragraphs"', "splitter", "'c80'"),
        ("k = 3", "k = 0", "settings.k", "k must be at least 1"),
        ('baseline = "w10"', 'baseline = "nope"', "settings.baseline", "'nope'"),
        ("size = 80", "size = 80\ncolour = 1", "colour", "'c80'"),
        ("max_lost = 1", "max_loss = 1", "gates.max_loss", "unknown gate"),
        ('retriever = "lexical"', 'retriever = "bm25"', "settings.retriever", "retriever"),
        ("k = 3", "k = 3\nresamples = 0", "settings.resamples", "at least 1"),
        ("k = 3", 'k = 3\nmatch = "pieces"', "settings.match", "match must be one of"),
        ("k = 3", "k = 3\nmatch = 1", "match", "wrong type"),
    ],
)
def test_bad_values_name_the_candidate_and_key(
    tmp_path: Path, old: str, new: str, key: str, words: str
) -> None:
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(ConfigError) as info:
        read(path)
    assert info.value.key == key
    assert words in str(info.value)
    assert str(path) in str(info.value)


def test_malformed_toml_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("k = 3", "k = = 3"))
    with pytest.raises(ConfigError) as info:
        read(path)
    assert str(path) in str(info.value)
    assert "line 4" in str(info.value)


def test_duplicate_candidate_names_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('name = "c80"', 'name = "w10"'))
    with pytest.raises(ConfigError, match="used twice"):
        read(path)
