"""Reading a corpus folder (design §2): ids, what counts as a document, all-or-nothing reads."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus, check_doc_id
from labeler.core.errors import CorpusError
from tests.conftest import CorpusWriter


def test_ids_are_posix_paths_relative_to_the_folder(make_corpus: CorpusWriter) -> None:
    root = make_corpus(
        {
            "policies/billing.md": "# Billing\n",
            "a.txt": "a\n",
            "deep/er/notes.TXT": "upper-case suffix\n",
        }
    )
    corpus = Corpus.read(root)
    assert sorted(corpus.documents) == ["a.txt", "deep/er/notes.TXT", "policies/billing.md"]
    assert [d.id for d in corpus] == ["a.txt", "deep/er/notes.TXT", "policies/billing.md"]
    assert len(corpus) == 3
    assert "policies/billing.md" in corpus
    assert corpus.root == root


def test_other_extensions_are_skipped_and_listed(make_corpus: CorpusWriter) -> None:
    root = make_corpus(
        {"doc.md": "x", "logo.png": b"\x89PNG", "data/table.csv": "a,b\n", "README": "r"}
    )
    corpus = Corpus.read(root)
    assert list(corpus.documents) == ["doc.md"]
    assert corpus.skipped == ("README", "data/table.csv", "logo.png")


def test_hidden_files_and_folders_are_ignored(make_corpus: CorpusWriter) -> None:
    root = make_corpus(
        {
            "visible.md": "v",
            ".hidden.md": "h",
            ".git/HEAD": "ref",
            ".spanlab/notes.txt": "n",
            "sub/.draft.txt": "d",
        }
    )
    corpus = Corpus.read(root)
    assert list(corpus.documents) == ["visible.md"]
    assert corpus.skipped == ()


def test_documents_hold_canonical_text_and_its_hash(make_corpus: CorpusWriter) -> None:
    root = make_corpus({"w.txt": b"\xef\xbb\xbfline one\r\nline two\rCafe\xcc\x81"})
    doc = Corpus.read(root).documents["w.txt"]
    assert doc.text == "line one\nline two\nCaf\u00e9"
    assert doc.hash == "sha256:" + hashlib.sha256(doc.text.encode()).hexdigest()


def test_read_and_from_texts_agree(make_corpus: CorpusWriter) -> None:
    texts = {"a.md": "# A\r\n", "b/c.txt": "see\n", "empty.txt": ""}
    from_folder = Corpus.read(make_corpus(texts))
    in_memory = Corpus.from_texts(texts)
    assert from_folder.hash == in_memory.hash
    assert from_folder.doc_hashes == in_memory.doc_hashes
    assert in_memory.text("a.md") == "# A\n"
    assert in_memory.documents["empty.txt"].hash == (
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


@pytest.mark.parametrize(
    "doc_id",
    [
        *("", "../secret.md", "a/../../b.md", "/etc/passwd.txt", "a\x00b.md", "a\\b.md"),
        *("./a.md", "a//b.md", "a/", "a/./b.md"),
    ],
)
def test_bad_ids_are_rejected(doc_id: str) -> None:
    with pytest.raises(CorpusError) as info:
        check_doc_id(doc_id)
    assert info.value.key == "doc"
    with pytest.raises(CorpusError):
        Corpus.from_texts({doc_id: "text"})


@pytest.mark.parametrize("doc_id", ["a.md", "policies/billing.md", "with space.txt", "é/ü.md"])
def test_good_ids_pass(doc_id: str) -> None:
    assert check_doc_id(doc_id) == doc_id


def test_a_file_whose_name_is_a_bad_id_stops_the_read(make_corpus: CorpusWriter) -> None:
    # A backslash is legal in a POSIX file name but would mean a folder on Windows.
    root = make_corpus({"good.md": "g", "odd\\name.md": "o"})
    with pytest.raises(CorpusError, match="invalid document id"):
        Corpus.read(root)


def test_one_bad_file_among_good_ones_ingests_nothing(make_corpus: CorpusWriter) -> None:
    root = make_corpus({"a.md": "fine", "b.md": b"ok \xc3\x28 broken", "c.md": "also fine"})
    result: Corpus | None = None
    with pytest.raises(CorpusError) as info:
        result = Corpus.read(root)
    assert result is None
    assert info.value.file == str(root / "b.md")
    assert info.value.offset == 3


def test_missing_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError) as info:
        Corpus.read(tmp_path / "nope")
    assert info.value.file == str(tmp_path / "nope")
    (tmp_path / "file.md").write_text("x")
    with pytest.raises(CorpusError):
        Corpus.read(tmp_path / "file.md")


def test_text_of_an_unknown_document_is_an_error() -> None:
    corpus = Corpus.from_texts({"a.md": "a"})
    with pytest.raises(CorpusError, match=r"no document 'b\.md'"):
        corpus.text("b.md")


def test_in_memory_text_that_is_not_unicode_scalar_values_is_refused() -> None:
    # json.loads('"\\ud800"') yields a lone surrogate, which has no UTF-8 form.
    with pytest.raises(CorpusError) as info:
        Corpus.from_texts({"s.txt": "ab\ud800"})
    assert (info.value.file, info.value.offset) == ("s.txt", 2)
