"""A tokenizer keeps recent texts' encodings (in memory): every token splitter cuts exactly
as it does encoding each text anew, parents and overlap included, on multibyte text, and a
document is encoded once however many candidates cut it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.chunking import split, tokenizers
from evaluator.chunking.spec import ContextSpec, SplitterSpec
from evaluator.chunking.tokenizers import MINILM, HuggingFaceTokenizer, load_tokenizer
from evaluator.chunking.units import units_for

TEXT = (
    "# Café naïve — résumé\n\n"
    "Le déjà-vu coûte 12 €; the 日本語 text sits beside e\u0301 and \u00e9 alike. 👍🏽 ok.\n"
    "Straße, Ærøskøbing, İstanbul and ﬁve ligatures: ﬂow ﬀ.\n\n"
    "## Tabelle\n\n| Größe | Preis |\n|---|---|\n| 4½ | 9 $ |\n\n"
    "Unbelievably_long_identifiers_like_this_one and URLs https://exämple.org/päth?q=ü "
    "split oddly; so do numbers 1,234,567.89 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 letters.\n"
) * 3

SPECS = [
    SplitterSpec("tokens", 16, 0),
    SplitterSpec("tokens", 16, 5),
    SplitterSpec("tokens", 40, 13),
    SplitterSpec("markdown", 24, unit="tokens"),
    SplitterSpec("recursive", 20, unit="tokens"),
    SplitterSpec("sentences", 30, 1, unit="tokens"),
    SplitterSpec("tokens", 8, 3, context=ContextSpec(parent=SplitterSpec("tokens", 32, 0))),
    SplitterSpec("tokens", 8, 2, context=ContextSpec(parent=SplitterSpec("tokens", 30, 7))),
    SplitterSpec("recursive", 10, unit="tokens",
                 context=ContextSpec(parent=SplitterSpec("markdown", 40, unit="tokens"))),
]  # fmt: skip


class _Counting:
    """The Rust tokenizer, counting the texts it encodes."""

    def __init__(self, backend: Any) -> None:
        self.backend, self.encoded = backend, 0

    def encode(self, text: str, **kw: Any) -> Any:
        self.encoded += 1
        return self.backend.encode(text, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)


def _minilm() -> HuggingFaceTokenizer:
    tok = load_tokenizer(MINILM)
    assert isinstance(tok, HuggingFaceTokenizer)
    return tok


def _forget(tok: HuggingFaceTokenizer) -> None:
    tok.kept.clear()
    units_for.cache_clear()
    split._kept_family.cache_clear()


def _cut_all() -> list[list[tuple[int, int]]]:
    return [[(p.start, p.end) for p in split.cut_text(spec, TEXT, "d.md")] for spec in SPECS]


def test_kept_encodings_cut_as_fresh_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    tok = _minilm()
    _forget(tok)
    monkeypatch.setattr(tokenizers, "KEPT_CHARS", 0)
    fresh = _cut_all()
    assert not list(tok.kept)  # nothing was kept
    monkeypatch.undo()
    _forget(tok)
    assert _cut_all() == fresh
    assert all(len(cut) > 1 for cut in fresh)  # every spec cut the text in several pieces
    assert len(TEXT) != len(TEXT.encode())  # multibyte


def test_a_document_is_encoded_once_for_every_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    tok = _minilm()
    _forget(tok)
    counting = _Counting(tok.backend)
    monkeypatch.setattr(tok, "_backend", counting)
    for spec in SPECS[:3]:
        split.cut_text(spec, TEXT, "d.md")
        units_for.cache_clear()  # the units are built again, from the kept encoding
    assert counting.encoded == 1
    assert tok.words(TEXT) and counting.encoded == 1  # the plan's words: the same encoding


def test_old_texts_are_let_go(monkeypatch: pytest.MonkeyPatch) -> None:
    tok = _minilm()
    _forget(tok)
    monkeypatch.setattr(tokenizers, "KEPT_CHARS", 2 * len(TEXT) + 4)  # two of the texts
    for i in range(4):
        tok.count(f"{i} {TEXT}")
    tok.count(f"2 {TEXT}")  # kept: read again, it becomes the newest
    tok.count(f"4 {TEXT}")
    assert list(tok.kept) == [f"2 {TEXT}", f"4 {TEXT}"]
    assert tok.kept.chars == 2 * len(TEXT) + 4


HOSTILE = [
    "Héllo", " ", "\n", "wörld", "\u0085", "ab\x01cd", "中文字", "naïve", "e\u0301té", "x" * 130,
    ".", "Ｆｕｌｌ", "👍🏽", "R|efunds", "\u200b", "\u00a0", "\t", ",", "(don't)", "e-mail",
    "a@b.c", "«", "»", "1,000.50", "¿qué?", "\u0301", "İstanbul", "\u1fef", "\u037e", "ﬁ",
    "unbelievable", "running", "##", "[UNK]", "\x00", "\ufeff", "𝔘𝔫𝔦",
]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=120), st.data())
def test_a_range_read_from_its_document_is_encoded_as_its_own_text(
    words: list[str], data: st.DataObject
) -> None:
    tok = _minilm()
    _forget(tok)
    text = "".join(words)
    tok.offsets(text)  # kept: its ranges are read from it
    a = data.draw(st.integers(0, len(text) - 1))
    b = data.draw(st.integers(a + 1, len(text)))
    holder = tok.kept.holder(text[a:b]) if b - a < len(text) else None
    if holder is not None:
        whole, at, layout = holder
        assert layout.within(whole, at, at + b - a, tok._alone) == tok._alone(text[a:b])


def test_a_parents_children_are_cut_without_encoding_the_parent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tok = _minilm()
    _forget(tok)
    counting = _Counting(tok.backend)
    monkeypatch.setattr(tok, "_backend", counting)
    spec = SPECS[6]  # 8-token children in 32-token parents
    parents = len(split.parent_pieces(spec, TEXT, "d.md").parents)
    _forget(tok)
    counting.encoded = 0
    monkeypatch.setattr(tokenizers, "WITHIN", 10**9)  # no range is read from its document
    apart = split.cut_text(spec, TEXT, "d.md")
    assert counting.encoded == 1 + parents
    _forget(tok)
    counting.encoded = 0
    monkeypatch.setattr(tokenizers, "WITHIN", 1)
    assert split.cut_text(spec, TEXT, "d.md") == apart
    assert counting.encoded < parents  # the document, and the words a parent's edges cut


def grouped(tok: HuggingFaceTokenizer, text: str) -> list[tuple[int, int, int]]:
    """Words as the tokenizer gave them before: tokens grouped by word id, one by one."""
    out: list[tuple[int, int, int]] = []
    for base, encoding in tok._encoded(text):
        found: dict[int, list[int]] = {}
        for word, (start, end) in zip(encoding.word_ids, encoding.offsets, strict=True):
            span = found.setdefault(-1 if word is None else word, [start, end, 0])
            span[0], span[1], span[2] = min(span[0], start), max(span[1], end), span[2] + 1
        out.extend((base + a, base + b, n) for a, b, n in found.values())
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(HOSTILE), max_size=120))
def test_words_read_as_runs_are_the_words_grouped_one_by_one(words: list[str]) -> None:
    tok = _minilm()
    text = "".join(words)
    assert tok.words(text) == grouped(tok, text)


def test_words_of_a_long_text_in_segments() -> None:
    tok = _minilm()
    text = TEXT * (3 * tokenizers.SEGMENT_CHARS // len(TEXT))
    assert len(tokenizers.segment_starts(text)) == 2  # word ids start again in each
    assert tok.words(text) == grouped(tok, text)
