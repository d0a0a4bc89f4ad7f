"""The terminal-safe forms of outside text (labeler.core.display) and the names rule with
its path join (labeler.core.names), by hand and by hypothesis."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labeler.core.display import BIDI, PLACEHOLDER, masked, shown, unsafe_at
from labeler.core.errors import SpanlabError
from labeler.core.names import check_name, inside, name_problem
from labeler.core.store.conflicts import show
from labeler.core.values import Status

RAW = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}\u2028\u2029\ud800-\udfff]")
"""What must never reach a terminal (newline and tab aside)."""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b]52;c;UFdORUQ=\x1b\\", "\\x1b]52;c;UFdORUQ=\\x1b\\"),
        ("\x1b[2J", "\\x1b[2J"),
        ("a\x9bb", "a\\x9bb"),
        ("a\x7fb", "a\\x7fb"),
        ("\x07\x00\r", "\\x07\\x00\\x0d"),
        ("x\u202ey\u202c", "x\\u202ey\\u202c"),
        ("\u2066\u2069\u200e\u200f\u061c", "\\u2066\\u2069\\u200e\\u200f\\u061c"),
        ("a\ud800", "a\\ud800"),
        ("lines\n\tkept", "lines\n\tkept"),
        ("plain 👍🏽 e\u0301 שלום \u200d", "plain 👍🏽 e\u0301 שלום \u200d"),
    ],
)  # fmt: skip
def test_shown_escapes_every_control_visibly(text: str, expected: str) -> None:
    assert shown(text) == expected


def test_one_row_escapes_newline_and_tab_too() -> None:
    assert shown("a\nb\tc", lines=False) == "a\\x0ab\\x09c"


def test_masked_keeps_every_offset() -> None:
    text = "ab\x1b[2Jc\u202ed\nе\tf"
    out = masked(text)
    assert len(out) == len(text)
    assert out == f"ab{PLACEHOLDER}[2Jc{PLACEHOLDER}d\nе\tf"


@given(st.text())
def test_nothing_unsafe_survives_either_form(text: str) -> None:
    assert RAW.search(shown(text)) is None
    assert RAW.search(shown(text, lines=False)) is None
    assert "\n" not in shown(text, lines=False)
    assert RAW.search(masked(text)) is None
    assert len(masked(text)) == len(text)
    assert (unsafe_at(text, lines=True) is None) == (shown(text) == text)


@pytest.mark.parametrize(
    "name", ["alice", "tok128-ov0", "lang:de", "Zoë", "日本", "a b", "x" * 64, "a.b", "..a"]
)
def test_good_names(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize(
    ("name", "problem"),
    [("", "0 characters"), ("x" * 65, "65 characters"), ("a/b", "separator"),
     ("a\\b", "separator"), (".", "folder"), ("..", "folder"), ("a\nb", "control"),
     ("a\x1bb", "control"), ("a\u202eb", "bidirectional"), ("a\u00a0b", "not printable"),
     (" a", "white space"), ("a\ud800", "surrogate")],
)  # fmt: skip
def test_names_that_are_not_names(name: str, problem: str) -> None:
    found = name_problem(name)
    assert found is not None and problem in found
    with pytest.raises(SpanlabError, match=problem) as caught:
        check_name(name, "candidate name", file="c.toml", key="candidate[0].name")
    assert caught.value.file == "c.toml" and caught.value.key == "candidate[0].name"


def test_inside_keeps_a_path_in_its_folder(tmp_path: Path) -> None:
    assert inside(tmp_path, "c40.run") == tmp_path / "c40.run"
    for bad in ("../../pwned.run", "/etc/passwd", "..", ""):
        with pytest.raises(SpanlabError, match="outside"):
            inside(tmp_path, bad)


def test_inside_sees_through_a_symlink_that_leads_out(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "link").symlink_to(tmp_path)
    with pytest.raises(SpanlabError, match="outside"):
        inside(tmp_path / "out", "link", "x.run")


def test_a_conflict_shows_an_enum_by_its_plain_value() -> None:
    assert show(Status.LABELLED) == "labelled"
    assert show("text") == "'text'"
