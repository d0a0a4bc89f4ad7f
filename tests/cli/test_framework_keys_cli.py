"""The §24 keys through `spanlab eval`: a hostile filter, context or cross-encoder file is
refused with one line naming the file, the key and the candidate, exit 2, no traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.test_ci import ci_folder as ci_folder  # the fixture
from tests.cli.test_context_units_cli import CTX, evaluate

CASES = [
    ('filter = { langg = "de" }', "filter.langg",
     "candidate 'ctx': no document has the front-matter field 'langg'"),
    ('filter = { path = "nowhere/**" }', "filter",
     "candidate 'ctx': filter lets no document of the corpus through"),
    ("filter = { path = 3 }", "filter.path", "candidate 'ctx': filter.path must be a glob"),
    ("filter = { lang = 0.5 }", "filter.lang", "candidate 'ctx': filter.lang takes text"),
    ('rerank = { model_path = "fifo.onnx" }', "rerank.model_path",
     "candidate 'ctx': rerank.model_path is a FIFO (named pipe), not a regular file"),
    ('rerank = { model_path = "link.onnx" }', "rerank.model_path",
     "candidate 'ctx': rerank.model_path is a symbolic link, which is not followed"),
    ('rerank = { model_path = "missing.onnx" }', "rerank.model_path",
     "candidate 'ctx': rerank.model_path: cannot read it: No such file or directory"),
    ('rerank = { model_path = "fake.onnx" }', "rerank.model_path",
     "rerank.model_path is not an ONNX model onnxruntime can run"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "key", "words"), CASES, ids=[c[0] for c in CASES])
def test_hostile_framework_keys_exit_2_naming_the_key(
    ci_folder: Path, line: str, key: str, words: str
) -> None:
    os.mkfifo(ci_folder / "fifo.onnx")
    (ci_folder / "fake.onnx").write_bytes(b"not onnx")
    (ci_folder / "tokenizer.json").write_text("{}", "utf-8")
    os.symlink(ci_folder / "fake.onnx", ci_folder / "link.onnx")
    code, err = evaluate(ci_folder, CTX + line + "\n")
    assert code == 2, err
    assert f"key {key}" in err and words in err, err
    assert err.count("\n") <= 3, err
