"""The extraction cache (§22): a second read of a corpus extracts nothing again, and an entry
that is not whole, not the one asked for, or writable by another is a miss — a planted
entry never changes a text."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from labeler.core.corpus.extract import pdf as pdf_module
from labeler.core.corpus.extract import read
from labeler.core.corpus.extract.base import Extracted
from labeler.core.corpus.extract.cache import ExtractionCache, key
from labeler.core.corpus.folder import Corpus
from tests.core.sources.makers import HELP_HTML, text_pdf

Counted = list[str]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counted:
    """Every PDF and HTML extraction run, by file (in process: the count is what matters)."""
    seen: Counted = []

    def counting(run: Callable[[bytes, str], Extracted]) -> Callable[[bytes, str], Extracted]:
        def wrapped(raw: bytes, file: str) -> Extracted:
            seen.append(Path(file).name)
            return run(raw, file)

        return wrapped

    monkeypatch.setitem(read.EXTRACTORS, ".pdf", counting(pdf_module.extract_pdf))
    monkeypatch.setitem(read.EXTRACTORS, ".html", counting(read.EXTRACTORS[".html"]))
    return seen


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.pdf").write_bytes(text_pdf(["Refunds are paid within 14 days."]))
    (root / "help.html").write_text(HELP_HTML, encoding="utf-8")
    (root / "notes.md").write_text("# Notes\n", encoding="utf-8")
    return root


def entry(cache: ExtractionCache, root: Path, name: str) -> Path:
    raw = (root / name).read_bytes()
    identity = read.IDENTITIES[Path(name).suffix]()
    return cache.folder / f"{key('sha256:' + _hex(raw), identity)}.json"


def _hex(raw: bytes) -> str:
    import hashlib

    return hashlib.sha256(raw).hexdigest()


def test_a_warm_read_extracts_nothing_and_binds_the_same(
    corpus_dir: Path, tmp_path: Path, counted: Counted
) -> None:
    cache = ExtractionCache(tmp_path / "extractions" / "me")
    cold = Corpus.read(corpus_dir, cache=cache)
    assert sorted(counted) == ["a.pdf", "help.html"]
    warm = Corpus.read(corpus_dir, cache=cache)
    assert sorted(counted) == ["a.pdf", "help.html"]  # none again
    assert warm.hash == cold.hash == Corpus.read(corpus_dir).hash
    assert warm.documents["a.pdf"].source == cold.documents["a.pdf"].source
    assert os.stat(entry(cache, corpus_dir, "a.pdf")).st_mode & 0o777 == 0o600


def test_an_edited_entry_is_a_miss_and_the_text_is_extracted_again(
    corpus_dir: Path, tmp_path: Path, counted: Counted
) -> None:
    cache = ExtractionCache(tmp_path / "extractions" / "me")
    Corpus.read(corpus_dir, cache=cache)
    path = entry(cache, corpus_dir, "a.pdf")
    path.write_bytes(path.read_bytes().replace(b"14 days", b"99 days"))
    again = Corpus.read(corpus_dir, cache=cache)
    assert again.text("a.pdf") == "Refunds are paid within 14 days.\n"
    assert counted.count("a.pdf") == 2


def test_an_entry_under_another_sources_name_is_a_miss(
    corpus_dir: Path, tmp_path: Path, counted: Counted
) -> None:
    """A whole entry, digest and all, copied to the name of another source's entry."""
    cache = ExtractionCache(tmp_path / "extractions" / "me")
    Corpus.read(corpus_dir, cache=cache)
    planted = text_pdf(["Refunds are never paid."])
    (corpus_dir / "b.pdf").write_bytes(text_pdf(["Refunds are paid within 30 days."]))
    other = entry(cache, corpus_dir, "b.pdf")
    (corpus_dir / "b.pdf").write_bytes(planted)
    Corpus.read(corpus_dir, cache=cache)  # b.pdf's entry, made from `planted`
    os.replace(entry(cache, corpus_dir, "b.pdf"), other)
    (corpus_dir / "b.pdf").write_bytes(text_pdf(["Refunds are paid within 30 days."]))
    assert Corpus.read(corpus_dir, cache=cache).text("b.pdf") == (
        "Refunds are paid within 30 days.\n"
    )


def test_an_entry_others_may_write_or_a_link_is_not_read(
    corpus_dir: Path, tmp_path: Path, counted: Counted
) -> None:
    cache = ExtractionCache(tmp_path / "extractions" / "me")
    Corpus.read(corpus_dir, cache=cache)
    path = entry(cache, corpus_dir, "a.pdf")
    os.chmod(path, 0o666)
    Corpus.read(corpus_dir, cache=cache)
    assert counted.count("a.pdf") == 2
    html = entry(cache, corpus_dir, "help.html")
    html.rename(tmp_path / "aside.json")
    html.symlink_to(tmp_path / "aside.json")
    Corpus.read(corpus_dir, cache=cache)
    assert counted.count("help.html") == 2


def test_a_new_extractor_version_is_a_miss(
    corpus_dir: Path, tmp_path: Path, counted: Counted, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ExtractionCache(tmp_path / "extractions" / "me")
    before = Corpus.read(corpus_dir, cache=cache)
    monkeypatch.setattr(pdf_module, "RULES", pdf_module.RULES + "-next")
    after = Corpus.read(corpus_dir, cache=cache)
    assert counted.count("a.pdf") == 2
    assert after.doc_hashes["a.pdf"] != before.doc_hashes["a.pdf"]


def test_a_link_or_a_folder_not_ones_own_in_place_of_the_accounts_folder_is_not_used(
    corpus_dir: Path, tmp_path: Path, counted: Counted
) -> None:
    """`extractions/<login>` a link to elsewhere (or a folder others may write): nothing is
    written through it, and what is there is not read."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "extractions").mkdir()
    (tmp_path / "extractions" / "me").symlink_to(elsewhere)
    cache = ExtractionCache(tmp_path / "extractions" / "me")
    Corpus.read(corpus_dir, cache=cache)
    assert list(elsewhere.iterdir()) == []
    shared = ExtractionCache(tmp_path / "extractions" / "shared")
    Corpus.read(corpus_dir, cache=shared)
    assert len(list(shared.folder.iterdir())) == 2
    os.chmod(shared.folder, 0o777)
    Corpus.read(corpus_dir, cache=shared)
    assert sorted(counted) == ["a.pdf", "a.pdf", "a.pdf", "help.html", "help.html", "help.html"]


def test_the_accounts_folder_is_sticky_and_ones_own_folder_private(
    corpus_dir: Path, tmp_path: Path
) -> None:
    cache = ExtractionCache(tmp_path / "extractions" / "me")
    Corpus.read(corpus_dir, cache=cache)
    assert os.stat(tmp_path / "extractions").st_mode & 0o1000 == 0o1000
    assert os.stat(cache.folder).st_mode & 0o077 == 0
