"""docs/reference/ is what docs/gen_reference.py writes from the code now, and the key
registries it reads are the ones the parsers use: a key added without its line fails here."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from evaluator import candidate_keys, candidates
from evaluator.retrieval import treatment
from labeler.core.project import config, keys
from labeler.core.team.roles import ROLES

ROOT = Path(__file__).resolve().parents[2]


def test_committed_reference_matches_the_code() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "gen_reference.py"), "--check"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


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
    except candidates.ConfigError as exc:
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
