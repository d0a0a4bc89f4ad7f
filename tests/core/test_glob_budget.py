"""`include` globs (§2, §21): over the complexity budget a clear error naming file and key,
in well under a second; within it, the walk over the glob's states agrees with the regex
on every glob and path hypothesis tries, and stays fast where the regex would not."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.core.corpus import glob
from labeler.core.corpus.files import FileRule, file_rule
from labeler.core.errors import ConfigError

BOMB = "**/" * 2000 + "x"


@pytest.mark.parametrize(
    ("pattern", "words"),
    [(BOMB, "glob 1 is 6,001 characters long (at most 512)"),
     ("**/" * 5 + "x", "glob 1 holds 5 '**' (at most 4: each matches any run of folders)"),
     ("*a" * 17, "glob 1 holds 17 '*' and '?' (at most 16)")],
)  # fmt: skip
def test_a_glob_over_the_budget_is_refused_naming_file_and_key(pattern: str, words: str) -> None:
    start = time.perf_counter()
    with pytest.raises(ConfigError) as caught:
        file_rule(["*.md", pattern], "/p/spanlab.toml")
    assert time.perf_counter() - start < 0.1
    assert str(caught.value) == f"/p/spanlab.toml, key include[1]: 'include' {words}".replace(
        "glob 1", "glob 2"
    )


@pytest.mark.parametrize(
    ("pattern", "path"),
    [("**/**/**/**/x", "a/" * 2000 + "b"), ("**a**a**a**a" + "*a" * 11 + "*b", "a" * 255),
     ("*a" * 15 + "*b", "a" * 250)],
)  # fmt: skip
def test_a_glob_within_the_budget_answers_fast_on_a_hostile_path(pattern: str, path: str) -> None:
    assert glob.too_costly(pattern) is None
    start = time.perf_counter()
    assert FileRule((pattern,)).is_document(path) is False
    assert time.perf_counter() - start < 0.5


def test_the_usual_globs_match_as_they_did() -> None:
    rule = FileRule(("**/*.md", "docs/*.rst", "notes/**"))
    found = [p for p in ("a.md", "x/y/a.md", "docs/a.rst", "docs/x/a.rst", "notes/q/r.txt",
                         "a.txt") if rule.is_document(p)]  # fmt: skip
    assert found == ["a.md", "x/y/a.md", "docs/a.rst", "notes/q/r.txt"]


GLOBS = st.lists(st.sampled_from(["a", "b", "/", "*", "?", "**/", "**"]), max_size=8).map("".join)
PATHS = st.lists(st.sampled_from(["a", "b", "/"]), max_size=10).map("".join)


@settings(max_examples=400, deadline=None)
@given(GLOBS, PATHS)
def test_the_walk_agrees_with_the_regex(pattern: str, path: str) -> None:
    tokens = glob._tokens(pattern)
    assert glob._Walk(tokens).matches(path) == (glob._regex(tokens).match(path) is not None)
