"""Suggested evidence with the real MiniLM: a paraphrase that shares no word with the
question is found through the embedding, and the note names the model."""

from __future__ import annotations

from evaluator.embedding.minilm import MODEL_ID, MiniLMEmbedder
from evaluator.retrieval.suggest import with_embeddings
from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.suggest import SentenceIndex

TEXT = (
    "Our office is closed on public holidays.\n"
    "You get your money back within a week of us receiving the parcel.\n"
    "The warehouse is in Lyon.\n"
)


def test_minilm_finds_a_paraphrase(minilm: MiniLMEmbedder) -> None:
    index = SentenceIndex(Corpus.from_texts({"policy.md": TEXT}))
    query = "How long do refunds take?"
    assert index.suggest(query, 3) == []  # not one word in common
    suggester = with_embeddings(index, minilm)
    best = suggester.suggest(query, 3)[0]
    assert best.text.startswith("You get your money back")
    assert (best.lexical_rank, best.dense_rank) == (None, 1)
    assert suggester.note == f"lexical + {MODEL_ID}"
