"""Corpus hazards (design §13): ids that could forge a hash line, bad file names, symlinks."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from labeler.core.corpus.canonical import corpus_hash
from labeler.core.corpus.folder import Corpus, check_doc_id, check_new_doc_id
from labeler.core.errors import CorpusError
from tests.conftest import CorpusWriter


@pytest.mark.parametrize(
    ("doc_id", "words"),
    [
        ("a\tb.md", r"U\+0009"),
        ("a\nb.md", r"U\+000A"),
        ("a\rb.md", r"U\+000D"),
        ("a\x00b.md", r"U\+0000"),
        ("a\x1bb.md", r"U\+001B"),
        ("a\x7fb.md", r"U\+007F"),
        ("a\x85b.md", r"U\+0085"),
        ("a\x9fb.md", r"U\+009F"),
        ("bad\udcff.md", "not valid UTF-8"),
        ("lone\ud800.md", "not valid UTF-8"),
        ("", "empty"),
    ],
)
def test_ids_with_controls_or_no_utf8_form_are_refused(doc_id: str, words: str) -> None:
    with pytest.raises(CorpusError, match=words) as caught:
        check_doc_id(doc_id)
    assert caught.value.key == "doc"
    printed = str(caught.value)
    assert all(c.isprintable() for c in printed)


@pytest.mark.parametrize(
    ("doc_id", "words"),
    [(".hidden.txt", "hidden"), (".git/x.txt", "hidden"), ("a/.b/c.md", "hidden"),
     ("notes.json", "not .md or .txt"), ("x", "not .md or .txt"), ("a\tb.txt", r"U\+0009")],
)  # fmt: skip
def test_ids_an_import_would_create_must_be_read_back(doc_id: str, words: str) -> None:
    with pytest.raises(CorpusError, match=words):
        check_new_doc_id(doc_id)
    assert check_new_doc_id("squad/x/0.txt") == "squad/x/0.txt"


def test_the_forged_hash_line_of_the_issue_is_refused(make_corpus: CorpusWriter) -> None:
    one = "sha256:" + hashlib.sha256(b"one").hexdigest()
    forged = f"x.txt\t{one}\ny.txt"
    # Without the id check the two corpora hash alike: that is the collision.
    two = "sha256:" + hashlib.sha256(b"two").hexdigest()
    assert corpus_hash([(forged, two)]) == corpus_hash([("x.txt", one), ("y.txt", two)])
    root = make_corpus({forged: "two"})
    with pytest.raises(CorpusError, match=r"U\+0009") as caught:
        Corpus.read(root)
    assert caught.value.file is not None and "\\t" in caught.value.file
    with pytest.raises(CorpusError):
        Corpus.from_texts({forged: "two"})


def test_a_file_name_that_is_not_utf8_is_named_not_a_crash(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "good.md").write_text("g")
    os.close(os.open(os.fsencode(root) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY))
    with pytest.raises(CorpusError, match="not valid UTF-8") as caught:
        Corpus.read(root)
    assert caught.value.file == f"{root}/caf\\xe9.md"
    str(caught.value).encode("utf-8")  # printable: no surrogate left in the message


def test_non_documents_with_odd_names_are_listed_printably(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.md").write_text("a")
    os.close(os.open(os.fsencode(root) + b"/x\xff\t.png", os.O_CREAT | os.O_WRONLY))
    assert Corpus.read(root).skipped == ("x\\xff\\t.png",)


def test_a_symlink_leading_outside_is_refused_unless_followed(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("canary")
    (root / "a.md").write_text("a")
    (root / "leak.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(CorpusError, match="outside the corpus folder") as caught:
        Corpus.read(root)
    assert caught.value.file == str(root / "leak.txt")
    assert caught.value.hint is not None and "--follow-symlinks" in caught.value.hint
    followed = Corpus.read(root, follow_symlinks=True)
    assert followed.text("leak.txt") == "canary"


def test_a_symlink_within_the_corpus_is_read(make_corpus: CorpusWriter) -> None:
    root = make_corpus({"a.md": "a", "sub/b.md": "b"})
    (root / "alias.md").symlink_to(root / "sub" / "b.md")
    (root / "rel.md").symlink_to("sub/b.md")
    corpus = Corpus.read(root)
    assert sorted(corpus.documents) == ["a.md", "alias.md", "rel.md", "sub/b.md"]
    assert corpus.passed_over == ()


def test_linked_folders_dangling_links_and_fifos_are_named(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "b.md").write_text("b")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.md").write_text("o")
    (root / "linkdir").symlink_to(tmp_path / "outside")
    (root / "gone.md").symlink_to(tmp_path / "nothing.md")
    (root / "loop.md").symlink_to(root / "loop.md")
    os.mkfifo(root / "pipe.md")
    corpus = Corpus.read(root)
    assert list(corpus.documents) == ["sub/b.md"]
    assert corpus.passed_over == (
        "gone.md (dangling link, or a link loop)",
        "linkdir (symlinked folder, not followed; --follow-symlinks reads it)",
        "loop.md (dangling link, or a link loop)",
        "pipe.md (not a regular file)",
    )
    followed = Corpus.read(root, follow_symlinks=True)
    assert sorted(followed.documents) == ["linkdir/o.md", "sub/b.md"]


def test_a_folder_link_loop_is_entered_once(make_corpus: CorpusWriter) -> None:
    root = make_corpus({"sub/b.md": "b"})
    (root / "sub" / "up").symlink_to(root)
    corpus = Corpus.read(root, follow_symlinks=True)
    assert list(corpus.documents) == ["sub/b.md"]
    assert corpus.passed_over == ("sub/up (symlinked folder already read)",)
