"""docs/reference/ is what docs/gen_reference.py writes from the code now, and the key
registries it reads are the ones the parsers use: a key added without its line fails here."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from docs import gen_reference
from evaluator import candidate_keys, candidates
from evaluator.retrieval import treatment
from evaluator.retrieval.chroma_http import CALL_TIMEOUT
from labeler.core.errors import ConfigError
from labeler.core.project import config, keys
from labeler.core.team.roles import ROLES
from labeler.core.team.steering import PROJECT_KEYS


def test_committed_reference_matches_the_code(capsys: pytest.CaptureFixture[str]) -> None:
    """Run `python docs/gen_reference.py` after adding a key, a command or a binding."""
    stale = gen_reference.main(["--check"])
    assert stale == 0, capsys.readouterr().err


def test_a_missing_line_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check fails when a committed page lacks what the code now says."""
    for name, page in gen_reference.PAGES.items():
        (tmp_path / name).write_text(gen_reference.HEAD + page().rstrip("\n") + "\n")
    monkeypatch.setattr(gen_reference, "OUT", tmp_path)
    assert gen_reference.main(["--check"]) == 0
    written = tmp_path / "candidates.md"
    written.write_text(written.read_text().replace("| `latency_repeats` |", "| `gone` |"))
    assert gen_reference.main(["--check"]) == 1


def test_settings_registry_is_the_settings_dataclass() -> None:
    """Every `[settings]` field has a registry line, and each default shown is the code's."""
    fields = {f.name: f.default for f in dataclasses.fields(candidates.Settings)}
    assert set(candidate_keys.SETTINGS.names()) == set(fields)
    for key in candidate_keys.SETTINGS.keys:
        code = fields[key.name]
        if code is dataclasses.MISSING:
            assert key.default == "required"
        elif code is None:
            assert key.default == "unset"
        elif isinstance(code, str):
            assert key.default == f'"{code}"'
        elif isinstance(code, tuple):
            assert key.default == str(list(code))
        else:
            assert key.default == str(code), key.name


def test_treatment_registry_defaults_are_the_code_defaults() -> None:
    assert set(candidate_keys.TREATMENT_KEYS) == {
        f.name for f in dataclasses.fields(treatment.Treatment)
    }
    mmr, fusion, rerank = treatment.MMR(), treatment.Fusion(), treatment.Rerank("http://x")
    shown = {k.name: k.default for k in candidate_keys.MMR.keys}
    assert (shown["lambda"], shown["fetch"]) == (str(mmr.lam), str(mmr.fetch))
    assert {k.name: k.default for k in candidate_keys.FUSION.keys}["k"] == str(fusion.k)
    assert {k.name: k.default for k in candidate_keys.RERANK.keys}["top"] == str(rerank.top)


def test_unknown_candidates_key_is_refused_naming_the_known_ones() -> None:
    data = {"settings": {"baseline": "a", "kk": 1}, "candidate": [{"name": "a"}]}
    try:
        candidates.parse(data, file="c.toml")
    except ConfigError as exc:
        assert "unknown key 'kk'" in exc.message
        assert ", ".join(candidate_keys.SETTINGS.names()) in exc.message
    else:
        raise AssertionError("an unknown key was accepted")


def test_project_registry_is_what_the_parser_knows() -> None:
    assert keys.names() == config._KEYS
    assert {"follow_symlinks", "blind", "trim_spans"} == config._FLAGS
    assert tuple(k.name for k in keys.TEAM) == ROLES
    project = config.Project(root=Path("."))
    shown = {k.name: k.default for k in keys.KEYS}
    assert shown["embedding"] == f'"{project.embedding}"'
    assert shown["encoding"] == f'"{project.encoding}"'
    assert shown["trim_spans"] == str(project.trim_spans).lower()
    assert shown["db"] == f'"{config.DEFAULT_DB}"'
    assert shown["embedding_cache"] == f'"{config.DEFAULT_CACHE}"'
    assert shown["chroma_timeout"] == f"{CALL_TIMEOUT:g}"  # the evaluator's default


def test_every_steering_key_is_a_key_of_the_registry() -> None:
    # team cannot import project (the layers), so steering names its keys itself: held here
    assert set(PROJECT_KEYS) <= keys.names()


def test_pictures_script_shoots_every_screen_the_guides_show() -> None:
    """docs/gen_pictures.py writes the screenshots the pages link to (it is run by hand: it
    drives the app on an evaluated demo); each one the docs name exists."""
    from docs import gen_pictures

    root = gen_pictures.OUT.parent
    named = set()
    for page in root.rglob("*.md"):
        named |= set(re.findall(r"pictures/([\w.-]+\.(?:svg|txt))", page.read_text("utf-8")))
    assert {"label.svg", "review.svg", "triage.svg", "frontier.svg", "show-q-0002.txt"} <= named
    assert all((gen_pictures.OUT / name).is_file() for name in named)
