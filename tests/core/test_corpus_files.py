"""Which files a corpus holds (§2): the default text formats, `include` globs in spanlab.toml,
one summary line for what is skipped, and an error for a corpus with no document."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from labeler.core.corpus.files import FileRule, skipped_summary
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError, CorpusError
from labeler.core.project import config
from tests.conftest import CorpusWriter

FILES: dict[str, str | bytes] = {
    "guide.rst": "Title\n=====\n",
    "notes.adoc": "= Notes\n",
    "todo.org": "* TODO\n",
    "paper.tex": "\\section{A}\n",
    "readme.md": "# R\n",
    "deep/a.txt": "a\n",
    "logo.png": b"\x89PNG",
    "data/table.csv": "a,b\n",
}


def test_the_default_reads_the_plain_text_formats_docs_are_kept_in(
    make_corpus: CorpusWriter,
) -> None:
    corpus = Corpus.read(make_corpus(FILES))
    assert list(corpus.documents) == [
        "deep/a.txt", "guide.rst", "notes.adoc", "paper.tex", "readme.md", "todo.org",
    ]  # fmt: skip
    assert corpus.skipped == ("data/table.csv", "logo.png")


@pytest.mark.parametrize(
    ("globs", "docs"),
    [
        (("**/*.rst",), ["guide.rst"]),
        (("*.txt", "readme.md"), ["deep/a.txt", "readme.md"]),  # no `/`: any depth
        (("deep/*",), ["deep/a.txt"]),
        (("**/*.csv", "*.md"), ["data/table.csv", "readme.md"]),
        (("d?ep/**",), ["deep/a.txt"]),
    ],
)
def test_include_globs_choose_the_documents(
    make_corpus: CorpusWriter, globs: tuple[str, ...], docs: list[str]
) -> None:
    corpus = Corpus.read(make_corpus(FILES), rule=FileRule(globs))
    assert sorted(corpus.documents) == docs


def test_a_glob_matching_nothing_is_named() -> None:
    assert FileRule(("**/*.md", "*.rst")).unmatched(["a/b.md"]) == ["*.rst"]


def test_skipped_files_are_one_line() -> None:
    line = skipped_summary([f"pep-{i}.rst" for i in range(737)] + ["logo.png"])
    assert line == "skipped 738 file(s) that are not documents (737 .rst, 1 .png; first: pep-0.rst)"


def test_a_corpus_with_no_document_is_an_error_naming_the_rule(make_corpus: CorpusWriter) -> None:
    root = make_corpus({"a.rst": "x", "b.rst": "y"})
    rule = FileRule(("**/*.md",))
    with pytest.raises(CorpusError) as caught:
        Corpus.read(root, rule=rule).require_documents(rule)
    assert "holds no document; skipped 2 file(s)" in caught.value.message
    assert caught.value.file == str(root)
    assert 'include = ["**/*.md"]' in (caught.value.hint or "")


@pytest.mark.parametrize("value", ['"*.md"', "[]", "[1]", '[""]'])
def test_a_bad_include_setting_is_refused(tmp_path: Path, value: str) -> None:
    (tmp_path / "spanlab.toml").write_text(f"include = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        config.load(tmp_path)
    assert caught.value.key == "include"


def test_init_reads_rst_says_one_line_and_refuses_an_empty_corpus(
    make_corpus: CorpusWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_corpus({**{f"pep-{i:04}.rst": f"PEP {i}\n" for i in range(30)}, "x.png": b"\0"})
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    done = CliRunner().invoke(app, ["init", os.path.relpath(root, work)])
    assert done.exit_code == 0, done.stderr
    assert "30 documents" in done.stdout
    assert done.stderr.count("\n") == 1 and "skipped 1 file(s)" in done.stderr
    (work / "spanlab.toml").write_text(
        (work / "spanlab.toml").read_text("utf-8") + 'include = ["**/*.md"]\n', "utf-8"
    )
    again = CliRunner().invoke(app, ["init", os.path.relpath(root, work)])
    assert again.exit_code == 2
    assert "the corpus holds no document; skipped 31 file(s)" in again.stderr
    assert "Traceback" not in again.stderr


def test_status_names_a_glob_that_finds_nothing_and_the_skipped_files(
    make_corpus: CorpusWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_corpus({"a.md": "Alpha.\n", "b.md": "Beta.\n", "notes.rst": "Skipped.\n"})
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert CliRunner().invoke(app, ["init", os.path.relpath(root, work)]).exit_code == 0
    toml = (work / "spanlab.toml").read_text("utf-8")
    (work / "spanlab.toml").write_text(toml + 'include = ["*.md", "docs/*.rst"]\n', "utf-8")
    done = CliRunner().invoke(app, ["corpus", "status"])
    assert done.exit_code == 0, done.stderr
    assert "include glob 'docs/*.rst' matches no document" in done.stderr
    assert "skipped 1 file(s) that are not documents (1 .rst; first: notes.rst)" in done.stderr
    assert "'*.md'" not in done.stderr
