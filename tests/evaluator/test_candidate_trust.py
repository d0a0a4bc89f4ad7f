"""A candidates file another account can write steers nothing (§21, evaluator.candidate_trust):
its servers, files and code are refused naming key, owner and mode; the rest reads as ever."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator import candidates
from labeler.core.errors import ConfigError

HEAD = '[settings]\nbaseline = "a"\nretriever = "lexical"\n{}\n[[candidate]]\nname = "a"\n'
PLAIN = HEAD.format("") + 'splitter = "chars"\nsize = 40\n'
HTTP = HEAD.format("") + ('splitter = "chunks"\noptions = { path = "c.jsonl" }\n'
                          'retriever = "http"\nurl = "http://127.0.0.1:9/search"\n')  # fmt: skip
RERANK = PLAIN + 'rerank = { url = "http://127.0.0.1:9/rerank" }\n'
MODEL = HEAD.format('embedding = "sentence-transformers:/tmp/model"') + 'splitter = "chars"\n' \
    'size = 40\n'  # fmt: skip
PARENT = PLAIN + ('context = { parent = { splitter = "python", function = "evil:cut", size = 0 } '
                  "}\n")  # fmt: skip


def _file(tmp_path: Path, text: str, mode: int, uid: int = 0) -> Path:
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    os.chown(path, uid, -1)
    return path


@pytest.mark.skipif(os.geteuid() != 0, reason="files of root's and of another uid")
@pytest.mark.parametrize(
    ("text", "key"),
    [(HTTP, "candidate[0].url"), (RERANK, "candidate[0].rerank.url"),
     (MODEL, "settings.embedding"), (PARENT, "candidate[0].context.parent.function"),
     (HTTP.replace('url = "http://127.0.0.1:9/search"\n', "").replace('"http"', '"ranked"')
      + 'ranked = "r.jsonl"\n', "candidate[0].ranked")],
)  # fmt: skip
def test_a_group_writable_file_may_not_steer(tmp_path: Path, text: str, key: str) -> None:
    path = _file(tmp_path, text, 0o664)
    with pytest.raises(ConfigError) as caught:
        candidates.read(path)
    assert caught.value.key == key and caught.value.file == str(path)
    assert caught.value.message.endswith(
        "and its group or others may write it (owner root, group root, mode 0664): a file "
        "another account can write steers no server, file or code spanlab uses"
    )
    assert f"cp {path} mine.toml" in (caught.value.hint or "")


@pytest.mark.skipif(os.geteuid() != 0, reason="a file of another uid")
def test_anothers_file_may_not_steer_even_read_only(tmp_path: Path) -> None:
    path = _file(tmp_path, RERANK, 0o644, uid=65534)
    with pytest.raises(ConfigError) as caught:
        candidates.read(path)
    assert "it is another account's (owner nobody" in caught.value.message


@pytest.mark.skipif(os.geteuid() != 0, reason="files of root's and of another uid")
@pytest.mark.parametrize(
    "text", [PLAIN, HEAD.format('embedding = "openai:m"') + PLAIN[len(HEAD.format("")) :]]
)
def test_what_steers_nothing_reads_from_anyones_file(tmp_path: Path, text: str) -> None:
    assert candidates.read(_file(tmp_path, text, 0o666, uid=65534)).candidates[0].name == "a"


def test_ones_own_file_steers_as_it_says(tmp_path: Path) -> None:
    path = _file(tmp_path, RERANK, 0o644, uid=os.geteuid())
    cand = candidates.read(path).candidates[0]
    assert cand.treatment.rerank is not None
    assert cand.treatment.rerank.url == "http://127.0.0.1:9/rerank"
