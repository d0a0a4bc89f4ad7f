"""A query's prompt (§23): its candidate's context at budget, numbered as sources.

The chunks are the ones the retrieval measures count at budget (`QueryView.top`, under
`in_budget`'s one fill rule), so every candidate is asked with the context its recall was
judged on. Sources read `[n] (doc path) text`, a prefix on its own line before the text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from evaluator.candidate_generation import QUESTION, SOURCES, Generation
from evaluator.chunk import Chunk
from evaluator.generation.cache import AnswerKey
from evaluator.metrics.view import QueryView


@dataclass(frozen=True)
class Source:
    """One numbered source of a prompt."""

    number: int
    """1-based, as the answer cites it (`[2]`)."""
    chunk: Chunk
    """What was sent: its document and ranges, for matching evidence."""
    text: str
    """The text sent: prefix (if any) on its own line, then the chunk's text."""

    def line(self) -> str:
        return f"[{self.number}] ({self.chunk.doc}) {self.text}"


@dataclass(frozen=True)
class Prompt:
    """What one query asks of the generator for one candidate."""

    query: str
    """The query id."""
    question: str
    """The query's text."""
    sources: tuple[Source, ...]
    """The context at budget, numbered."""
    text: str
    """The template with sources and question filled in: the user message."""

    @property
    def context(self) -> str:
        """The numbered sources as sent, one a paragraph."""
        return "\n\n".join(s.line() for s in self.sources)

    def messages(self) -> list[Mapping[str, str]]:
        return [{"role": "user", "content": self.text}]

    def key(self, g: Generation) -> AnswerKey:
        digest = hashlib.sha256(self.context.encode("utf-8")).hexdigest()
        return AnswerKey(g.model, g.decoding(), g.template_sha256, digest, self.question)


def chunk_text(chunk: Chunk, text_of: Callable[[str], str]) -> str:
    """The text a chunk sends: its prefix on its own line, then its range of the document."""
    body = text_of(chunk.doc)[chunk.start : chunk.end]
    return f"{chunk.prefix}\n{body}" if chunk.prefix else body


def numbered(chunks: Sequence[Chunk], text_of: Callable[[str], str]) -> tuple[Source, ...]:
    return tuple(Source(n, c, chunk_text(c, text_of)) for n, c in enumerate(chunks, start=1))


def fill(template: str, sources: str, question: str) -> str:
    """The template with its two placeholders replaced, once each, in one pass (a question
    holding `{{sources}}` is sent as written, never expanded)."""
    head, _, rest = template.partition(SOURCES)
    if QUESTION in head:
        before, _, after = head.partition(QUESTION)
        return before + question + after + sources + rest
    middle, _, tail = rest.partition(QUESTION)
    return head + sources + middle + question + tail


def build(view: QueryView, g: Generation, text_of: Callable[[str], str]) -> Prompt:
    """The prompt for one query through one candidate, at the view's budget.

    `view` must carry the settings' budget (`MetricSettings.budget`): a view at k would
    send a different amount of context per candidate, which §17 forbids.
    """
    if view.settings.budget is None:
        raise ValueError("a prompt is built at budget: the view's settings carry no budget")
    sources = numbered(view.top, text_of)
    context = "\n\n".join(s.line() for s in sources)
    text = fill(g.template_text, context, view.query.text)
    return Prompt(view.query.id, view.query.text, sources, text)
