"""Treatment keys in `[settings]` (§19): defaults every candidate takes unless it sets its
own; `false` on a candidate turns a default table off; a bad default names `settings.KEY`."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.candidates import read
from evaluator.retrieval.treatment import MMR
from labeler.core.errors import ConfigError

FILE = """
[settings]
baseline = "a"
retriever = "lexical"
stopwords = true
mmr = { lambda = 0.3 }
max_per_source = 2
DEFAULTS

[[candidate]]
name = "a"
splitter = "chars"
size = 100

[[candidate]]
name = "b"
splitter = "chars"
size = 100
mmr = false
stopwords = false
max_per_source = 3

[[candidate]]
name = "c"
splitter = "chars"
size = 100
mmr = { lambda = 0.9, fetch = 10 }
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "candidates.toml"
    path.write_text(text, "utf-8")
    return path


def test_settings_give_defaults_a_candidate_overrides_or_turns_off(tmp_path: Path) -> None:
    cfile = read(write(tmp_path, FILE.replace("DEFAULTS", 'rerank = { url = "http://h:1/r" }')))
    a, b, c = (cfile.candidate(n).treatment for n in "abc")
    assert (a.stopwords, a.mmr, a.max_per_source) == (True, MMR(0.3, 20), 2)
    assert a.rerank is not None and a.rerank.url == "http://h:1/r"
    assert (b.stopwords, b.mmr, b.max_per_source) == (False, None, 3)
    assert (c.stopwords, c.mmr, c.max_per_source) == (True, MMR(0.9, 10), 2)
    assert a.fingerprint() != b.fingerprint() != c.fingerprint()


@pytest.mark.parametrize(
    ("old", "new", "key", "words"),
    [
        ("mmr = { lambda = 0.3 }", "mmr = true", "settings.mmr", "not true"),
        ("mmr = { lambda = 0.3 }", "mmr = { lambda = 2 }", "settings.mmr", "[settings] default"),
        ("mmr = { lambda = 0.3 }", "mmr = { l = 1 }", "settings.mmr.l", "unknown key 'l'"),
        ("stopwords = true", 'stopwords = "yes"', "settings.stopwords", "wrong type"),
        ("max_per_source = 2", "max_per_source = 0", "settings.max_per_source", "[1, 10000]"),
        ('retriever = "lexical"', 'retriever = "exact"', "settings.stopwords", "lexical or"),
        ("DEFAULTS", 'rerank = { url = "ftp://x" }', "settings.rerank.url", "not a URL"),
        ("DEFAULTS", "rerank = { top = 5 }", "settings.rerank.url", "needs url"),
        ("mmr = false\n", "mmr = true\n", "mmr", "or false to turn a [settings] default off"),
    ],
)
def test_a_bad_default_names_the_settings_key(
    tmp_path: Path, old: str, new: str, key: str, words: str
) -> None:
    text = FILE.replace(old, new, 1).replace("DEFAULTS", "")
    with pytest.raises(ConfigError) as info:
        read(write(tmp_path, text))
    assert info.value.key == key
    assert words in str(info.value)
