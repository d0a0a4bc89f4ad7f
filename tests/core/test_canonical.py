"""Canonical text and hashes (design §2, §13): the places where annotation tools shift spans.

Every expected offset below is counted by hand in code points; every hash is recomputed
with hashlib straight from the wording of §2.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.core.corpus.canonical import (
    NORMALIZATION,
    OffsetMap,
    canonical_from_bytes,
    canonicalize,
    corpus_hash,
    decode,
    doc_hash,
)
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import CorpusError
from labeler.core.values import Span
from tests.conftest import CorpusWriter

BOM = b"\xef\xbb\xbf"
FAMILY = "👩\u200d👩\u200d👧"
"""Woman, ZWJ, woman, ZWJ, girl: one glyph, five code points, eighteen UTF-8 bytes."""


def test_normalization_version_is_the_spec_string() -> None:
    assert NORMALIZATION == "nfc-lf/1"


def test_leading_bom_is_dropped_and_only_the_leading_one() -> None:
    assert canonical_from_bytes(BOM + b"hello", file="a.txt") == "hello"
    assert canonical_from_bytes(b"a" + BOM + b"b", file="a.txt") == "a\ufeffb"


@pytest.mark.parametrize("name", ["utf-8", "UTF8", "utf_8", "u8"])
def test_every_name_of_utf8_drops_the_bom(name: str) -> None:
    assert decode(BOM + b"hi", file="a.txt", encoding=name) == "hi"


def test_crlf_and_lone_cr_become_lf() -> None:
    assert canonicalize("a\r\nb\rc\n\r\nd") == "a\nb\nc\n\nd"
    # LF then CR is two line breaks, not one.
    assert canonicalize("a\n\rb") == "a\n\nb"


def test_whitespace_tabs_and_tables_survive() -> None:
    text = "| a\t| b |\n|---|---|\n  code  \n\n\n\u00a0end  "
    assert canonicalize(text) == text


def test_nfc_composes_and_shifts_offsets() -> None:
    raw = "Cafe\u0301 au lait"
    text = canonicalize(raw)
    assert text == "Caf\u00e9 au lait"
    assert (len(raw), len(text)) == (13, 12)
    assert (raw.index("au"), text.index("au")) == (6, 5)


def test_nfc_orders_and_composes_combining_marks() -> None:
    # No precomposed q with dots: the marks are put in canonical order (220 before 230).
    assert canonicalize("q\u0307\u0323") == "q\u0323\u0307"
    # s + dot below + dot above composes to one code point in either order.
    assert canonicalize("s\u0307\u0323") == "\u1e69"
    assert canonicalize("s\u0323\u0307") == "\u1e69"
    # Singletons decompose: the Angstrom sign becomes A with ring.
    assert canonicalize("\u212b") == "\u00c5"


def test_astral_emoji_is_one_code_point() -> None:
    text = canonical_from_bytes("a😀b".encode(), file="e.txt")
    assert len("😀".encode()) == 4
    assert len(text) == 3
    span = Span.from_text(text, "e.txt", 1, 2)
    assert span.quote == "😀"
    assert (span.prefix, span.suffix) == ("a", "b")
    assert text.index("b") == 2


def test_zwj_sequence_is_five_code_points() -> None:
    text = canonicalize(f"x{FAMILY}y")
    assert len(FAMILY) == 5
    assert len(FAMILY.encode()) == 18
    assert text == f"x{FAMILY}y"
    span = Span.from_text(text, "f.txt", 1, 6)
    assert span.quote == FAMILY
    assert span.suffix == "y"


def test_invalid_utf8_names_file_and_byte_offset() -> None:
    with pytest.raises(CorpusError) as info:
        canonical_from_bytes(b"abc\xffdef", file="docs/bad.txt")
    assert (info.value.file, info.value.offset) == ("docs/bad.txt", 3)
    assert "docs/bad.txt" in str(info.value)
    assert "offset 3" in str(info.value)


def test_invalid_utf8_offset_counts_the_bom_bytes() -> None:
    # The offset is into the file as it is on disk, BOM included.
    with pytest.raises(CorpusError) as info:
        canonical_from_bytes(BOM + b"abc\xff", file="bom.txt")
    assert info.value.offset == 6


def test_truncated_multibyte_sequence_points_at_its_first_byte() -> None:
    with pytest.raises(CorpusError) as info:
        decode(b"ab\xe2\x82", file="t.txt")
    assert info.value.offset == 2


def test_latin1_needs_the_encoding_flag(make_corpus: CorpusWriter) -> None:
    root = make_corpus({"fr.txt": "caf\u00e9 cr\u00e8me\r\n".encode("latin-1")})
    with pytest.raises(CorpusError) as info:
        Corpus.read(root)
    assert info.value.offset == 3
    assert info.value.file is not None and info.value.file.endswith("fr.txt")
    corpus = Corpus.read(root, encoding="latin-1")
    assert corpus.text("fr.txt") == "caf\u00e9 cr\u00e8me\n"


def test_unknown_encoding_is_a_corpus_error() -> None:
    with pytest.raises(CorpusError) as info:
        decode(b"abc", file="a.txt", encoding="no-such-codec")
    assert info.value.file == "a.txt"


def test_doc_hash_is_sha256_of_canonical_utf8() -> None:
    expected = "sha256:" + hashlib.sha256("Caf\u00e9\n".encode()).hexdigest()
    assert doc_hash("Caf\u00e9\n") == expected
    corpus = Corpus.from_texts({"a.txt": "Cafe\u0301\r\n"})
    assert corpus.documents["a.txt"].hash == expected


def test_corpus_hash_follows_the_spec_literally() -> None:
    texts = {"b/c.md": "# C\n", "b.txt": "bee\n", "a.txt": "ay\n"}
    hashes = {d: "sha256:" + hashlib.sha256(t.encode()).hexdigest() for d, t in texts.items()}
    # Sorted by id as strings: "." (2E) sorts before "/" (2F).
    payload = (
        "nfc-lf/1\n"
        f"a.txt\t{hashes['a.txt']}\n"
        f"b.txt\t{hashes['b.txt']}\n"
        f"b/c.md\t{hashes['b/c.md']}\n"
    )
    expected = "sha256:" + hashlib.sha256(payload.encode()).hexdigest()
    assert corpus_hash(hashes.items()) == expected
    assert Corpus.from_texts(texts).hash == expected


def test_empty_corpus_hash_is_the_normalization_line_alone() -> None:
    expected = "sha256:" + hashlib.sha256(b"nfc-lf/1\n").hexdigest()
    assert corpus_hash([]) == expected


def test_offset_map_on_bom_crlf_and_combining_text() -> None:
    raw = decode(BOM + "Cafe\u0301\r\nso\r\nnai\u0308ve".encode(), file="m.txt")
    assert raw == "Cafe\u0301\r\nso\r\nnai\u0308ve"
    m = OffsetMap(raw)
    assert m.canonical == "Caf\u00e9\nso\nna\u00efve"
    # raw:   C a f e ◌́ \r \n s o \r \n  n  a  i  ◌̈  v  e  end
    # canon: C a f é    \n    s o \n     n  a  ï      v  e  end
    expected = [0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11, 12, 13]
    assert [m.to_canonical(i) for i in range(len(raw) + 1)] == expected
    start, end = m.to_canonical(raw.index("so")), m.to_canonical(raw.index("so") + 2)
    assert m.canonical[start:end] == "so"
    start, end = m.to_canonical(raw.index("nai")), m.to_canonical(len(raw))
    assert m.canonical[start:end] == "na\u00efve"


def test_offset_map_on_astral_and_zwj_text_is_the_identity() -> None:
    raw = f"a😀{FAMILY}\r\nz"
    m = OffsetMap(raw)
    assert m.canonical == f"a😀{FAMILY}\nz"
    assert [m.to_canonical(i) for i in range(len(raw) + 1)] == [0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9]


def test_offset_map_on_hangul_jamo_composing_across_starters() -> None:
    # L + V + T jamo are all starters, yet NFC composes them into one syllable.
    raw = "\u1100\u1161\u11a8 x\r\u1100\u1161"
    m = OffsetMap(raw)
    assert m.canonical == canonicalize(raw) == "\uac01 x\n\uac00"
    assert [m.to_canonical(i) for i in range(len(raw) + 1)] == [0, 0, 0, 1, 2, 3, 4, 4, 5]


def test_offset_map_on_indic_vowel_signs_composing_across_starters() -> None:
    raw = "\u0b47\u0b3e!"
    m = OffsetMap(raw)
    assert m.canonical == "\u0b4b!"
    assert [m.to_canonical(i) for i in range(len(raw) + 1)] == [0, 0, 1, 2]


def test_offset_map_rejects_offsets_outside_the_text() -> None:
    m = OffsetMap("ab")
    assert m.to_canonical(2) == 2
    with pytest.raises(IndexError):
        m.to_canonical(3)
    with pytest.raises(IndexError):
        m.to_canonical(-1)


TRICKY = st.sampled_from(
    [
        *"aeAEs \t\r\n",
        *("\r\n", "e\u0301", "s\u0307\u0323", "\u1100\u1161", "\u1100\u1161\u11a8"),
        *("\u0301", "\u0308", "\u0323", "\u0307", "\u0344", "\u212b", "\u00c5", "\ufeff"),
        *("\u1100", "\u1161", "\u11a8", "\uac00", "\u0b47", "\u0b3e", "\u0f73", "\u0f80"),
        *("😀", FAMILY, "\u200d", "\ufe0f", "\U0001f3fd"),
    ]
)
"""Pieces that NFC or the line-ending rule rewrite, alone or joined to a neighbour."""
TEXT = st.lists(st.one_of(TRICKY, st.characters(codec="utf-8")), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_canonicalize_is_idempotent(raw: str) -> None:
    once = canonicalize(raw)
    assert canonicalize(once) == once
    assert "\r" not in once


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_offset_map_points_into_canonicalize(raw: str) -> None:
    m = OffsetMap(raw)
    assert m.canonical == canonicalize(raw)
    offsets = [m.to_canonical(i) for i in range(len(raw) + 1)]
    assert offsets[0] == 0
    assert offsets[-1] == len(m.canonical)
    assert offsets == sorted(offsets)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("ab c.\t"), max_size=8), max_size=6))
def test_offset_map_keeps_ascii_lines_across_line_endings(lines: list[str]) -> None:
    # Mixed endings: each line's text must sit at its mapped offsets in the canonical text.
    endings = ["\r\n", "\r", "\n"]
    raw = "".join(line + endings[i % 3] for i, line in enumerate(lines))
    m = OffsetMap(raw)
    pos = 0
    for i, line in enumerate(lines):
        start, end = m.to_canonical(pos), m.to_canonical(pos + len(line))
        assert m.canonical[start:end] == line
        pos += len(line) + len(endings[i % 3])
