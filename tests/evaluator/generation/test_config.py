"""`[generation]` in the candidates file: read whole into a frozen value, every hostile
value refused naming its key (exit 2 at the CLI, as every ConfigError)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path

import pytest

from evaluator import candidates
from evaluator.candidate_generation import Generation, read_generation
from labeler.core.errors import ConfigError

TEMPLATE = "Answer from the sources, citing [n]. If they do not hold it, say: NOT IN SOURCES.\n\n{{sources}}\n\nQuestion: {{question}}\n"  # noqa: E501
HEAD = '[settings]\nbaseline = "a"\n[[candidate]]\nname = "a"\nsplitter = "chars"\nsize = 100\n'
GOOD = {"url": "http://127.0.0.1:8080/v1", "model": "m", "template": "t.txt",
        "abstention": "NOT IN SOURCES"}  # fmt: skip


def write(tmp_path: Path, text: str = TEMPLATE) -> Path:
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o644)
    return path


def read(tmp_path: Path, **over: object) -> Generation | None:
    raw = {**GOOD, **over}
    return read_generation({k: v for k, v in raw.items() if v is not None},
                           str(tmp_path / "cand.toml"))  # fmt: skip


def test_a_good_table_is_a_frozen_value_with_the_template_digest(tmp_path: Path) -> None:
    write(tmp_path)
    g = read(tmp_path, seed=7, max_tokens=64)
    assert g is not None
    assert (g.url, g.model, g.seed, g.max_tokens, g.temperature) == (
        "http://127.0.0.1:8080/v1", "m", 7, 64, 0.0)  # fmt: skip
    assert g.template_sha256 == "sha256:" + hashlib.sha256(TEMPLATE.encode()).hexdigest()
    assert g.endpoint_url == "http://127.0.0.1:8080/v1/chat/completions"
    assert g.decoding() == "temperature=0;seed=7;max_tokens=64"
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.model = "other"  # type: ignore[misc]


def test_the_key_comes_from_the_variable_key_env_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path)
    g = read(tmp_path, key_env="MY_LLM_KEY")
    assert g is not None
    monkeypatch.delenv("MY_LLM_KEY", raising=False)
    assert g.key() == ""
    monkeypatch.setenv("MY_LLM_KEY", "sk-secret")
    assert g.key() == "sk-secret"
    assert "sk-secret" not in repr(g)


def test_absent_is_none() -> None:
    assert read_generation(None, "c.toml") is None


@pytest.mark.parametrize(
    ("over", "key", "said"),
    [
        ({"temperature": 0.7}, "generation.temperature", "temperature must be 0"),
        ({"temperature": "0"}, "generation.temperature", "wrong type"),
        ({"seed": -1}, "generation.seed", "seed must be 0 to"),
        ({"seed": 2**40}, "generation.seed", "seed must be 0 to"),
        ({"max_tokens": 0}, "generation.max_tokens", "max_tokens must be 1 to"),
        ({"max_tokens": True}, "generation.max_tokens", "wrong type"),
        ({"url": "file:///etc/passwd"}, "generation.url", "http:// or https://"),
        ({"model": " "}, "generation.model", "must not be empty"),
        ({"key_env": "PATH; rm -rf /"}, "generation.key_env", "environment variable"),
        ({"timeout": 0}, "generation.timeout", "timeout must be 1 to"),
        ({"abstention": "I DO NOT KNOW"}, "generation.abstention", "appear in the template"),
        ({"model": None}, "generation.model", "needs 'model'"),
        ({"colour": "red"}, "generation.colour", "unknown key 'colour'"),
        ({"template": "missing.txt"}, "generation.template", "cannot read the template"),
        ({"send": "some"}, "generation.send", 'send must be "hit" or "all"'),
        ({"model": "m\x1b[2J"}, "generation.model", "control character"),
    ],
)
def test_hostile_values_are_refused_naming_the_key(
    tmp_path: Path, over: dict[str, object], key: str, said: str
) -> None:
    write(tmp_path)
    with pytest.raises(ConfigError) as err:
        read(tmp_path, **over)
    assert err.value.key == key
    assert said in err.value.message


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("no placeholders NOT IN SOURCES", "must hold {{sources}} once, not 0"),
        ("{{sources}} {{sources}} {{question}} NOT IN SOURCES", "once, not 2"),
        ("{{sources}} NOT IN SOURCES", "must hold {{question}} once, not 0"),
    ],
)
def test_a_template_without_its_placeholders_once_is_refused(
    tmp_path: Path, text: str, said: str
) -> None:
    write(tmp_path, text)
    with pytest.raises(ConfigError, match="template") as err:
        read(tmp_path)
    assert said in err.value.message and err.value.key == "generation.template"


def test_a_template_that_is_not_a_file_of_ones_own_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path)
    path.chmod(0o666)
    with pytest.raises(ConfigError, match="steers what is asked") as err:
        read(tmp_path)
    assert err.value.key == "generation.template"
    path.unlink()
    os.symlink(tmp_path / "elsewhere.txt", path)
    (tmp_path / "elsewhere.txt").write_text(TEMPLATE)
    with pytest.raises(ConfigError, match="cannot read the template"):
        read(tmp_path)
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(ConfigError, match="not a regular file"):
        read(tmp_path)


def test_binary_and_oversized_templates_are_refused(tmp_path: Path) -> None:
    write(tmp_path).write_bytes(b"\xff\xfe{{sources}}{{question}}")
    with pytest.raises(ConfigError, match="not UTF-8"):
        read(tmp_path)
    write(tmp_path, TEMPLATE + "x" * 70_000)
    with pytest.raises(ConfigError) as err:
        read(tmp_path)
    assert err.value.key == "generation.template"


def generating(tmp_path: Path, mode: int) -> Path:
    """A template and a candidates file with a good `[generation]`, in `mode`."""
    write(tmp_path)
    cand = tmp_path / "cand.toml"
    cand.write_text(HEAD + '[generation]\nurl = "http://h:1/v1"\nmodel = "m"\n'
                    'template = "t.txt"\nabstention = "NOT IN SOURCES"\n')  # fmt: skip
    cand.chmod(mode)
    return cand


def test_the_candidates_file_carries_it(tmp_path: Path) -> None:
    cand = generating(tmp_path, 0o644)
    g = candidates.read(cand).generation
    assert g is not None and g.template == str(tmp_path / "t.txt")
    cand.write_text(HEAD)
    assert candidates.read(cand).generation is None
    table = '[generation]\nurl = "http://h:1/v1"\nmodel = "m"\ntemperature = 1\n'
    cand.write_text(HEAD + table + 'template = "t.txt"\nabstention = "NOT IN SOURCES"\n')
    with pytest.raises(ConfigError) as err:
        candidates.read(cand)
    assert err.value.key == "generation.temperature"


def test_a_candidates_file_others_may_write_steers_no_generation_server(tmp_path: Path) -> None:
    cand = generating(tmp_path, 0o666)
    with pytest.raises(ConfigError, match="the generation server called") as err:
        candidates.read(cand)
    assert err.value.key == "generation.url"


def test_generation_gates_are_read_and_checked(tmp_path: Path) -> None:
    cand = generating(tmp_path, 0o644)
    good = cand.read_text() + "[gates.generation]\nmin_completeness = 0.5\nmax_lost = 0\n"
    cand.write_text(good)
    assert candidates.read(cand).gates.generation == {"min_completeness": 0.5, "max_lost": 0.0}
    cand.write_text(good + "max_recall = 1\n")
    with pytest.raises(ConfigError, match="unknown gate 'max_recall'") as err:
        candidates.read(cand)
    assert err.value.key == "gates.generation.max_recall"
    cand.write_text(HEAD + "[gates.generation]\nmin_completeness = 0.5\n")
    with pytest.raises(ConfigError, match="no \\[generation\\]") as err:
        candidates.read(cand)
    assert err.value.key == "gates.generation"
