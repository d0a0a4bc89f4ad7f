"""SQuAD v1.1 / v2.0 JSON, `squad` (§4): the file brings its own documents.

Each paragraph's context becomes a document `squad/<title slug>/<paragraph>.txt`, unless
the article is one this module wrote (title = a document id, one paragraph). SQuAD's
several answers to a question are alternatives, so the first is the evidence and the
others go into the notes; a question repeated under one id in several articles (how we
write a query with evidence in several documents) is one query. SQuAD ids are kept, so
importing a file twice meets the store's id check rather than a duplicate warning.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from labeler.core.corpus.folder import DOCUMENT_SUFFIXES, Corpus, check_new_doc_id
from labeler.core.errors import CorpusError, LabelError
from labeler.core.formats import Imported
from labeler.core.formats._common import (
    QUESTION,
    FreshIds,
    RawView,
    Where,
    clean_text,
    json_text,
    load_json,
    raw_span,
    valid_id,
    write_atomic,
)
from labeler.core.progress import TaskFactory, each, no_task
from labeler.core.typed import need, typed
from labeler.core.values import Boundary, Query, Span, Status

SLICE = "squad"
"""The slice every imported query is tagged with."""


@dataclass
class _Question:
    """A question gathered from one or more paragraphs, before it gets its id."""

    where: Where
    """Its first place in the file."""
    squad_id: str
    """The id the file gives it."""
    text: str
    """The question."""
    abstain: bool
    """SQuAD v2 `is_impossible`."""
    spans: list[Span] = field(default_factory=list)
    """The first answer of each paragraph it appears in."""
    others: list[str] = field(default_factory=list)
    """The other, distinct answers, described for the notes."""


def read(
    path: Path, corpus: Corpus, *, existing: Sequence[Query], progress: TaskFactory = no_task
) -> Imported:
    """Validate the whole file, then return its questions and paragraph documents."""
    where = Where(str(path))
    data = load_json(path, progress)
    articles = need(data, "data", list, where)
    documents: dict[str, str] = {}
    questions: dict[str, _Question] = {}
    slugs: set[str] = set()
    for ai, article in enumerate(each(progress, f"checking {len(articles):,} articles", articles)):
        at = where.at(f"data[{ai}]")
        paragraphs = need(article, "paragraphs", list, at)
        title = need(article, "title", str, at)
        names = _doc_ids(title, len(paragraphs), slugs)
        for pi, paragraph in enumerate(paragraphs):
            pat = at.at(f"paragraphs[{pi}]")
            view = _document(paragraph, names[pi], corpus, documents, pat)
            for qi, qa in enumerate(need(paragraph, "qas", list, pat)):
                _question(qa, view, names[pi], questions, pat.at(f"qas[{qi}]"))
    return Imported(_queries(questions.values(), existing), documents=documents)


def _doc_ids(title: str, count: int, slugs: set[str]) -> list[str]:
    """Our own export's articles keep their document id; others get a slug folder."""
    if count == 1 and PurePosixPath(title).suffix in DOCUMENT_SUFFIXES:
        try:
            return [check_new_doc_id(title)]
        except CorpusError:
            pass
    base = "-".join(re.findall(r"\w+", unicodedata.normalize("NFC", title).casefold()))
    base = base or "untitled"
    slug, n = base, 1
    while slug in slugs:
        n += 1
        slug = f"{base}-{n}"
    slugs.add(slug)
    return [f"squad/{slug}/{i}.txt" for i in range(count)]


def _document(
    paragraph: Any, doc: str, corpus: Corpus, documents: dict[str, str], where: Where
) -> RawView:
    context = need(paragraph, "context", str, where)
    view = RawView(context)
    text = view.canonical
    if documents.get(doc, text) != text or (doc in corpus and corpus.text(doc) != text):
        raise where.at("context").error(
            f"document {doc} already has other text",
            hint="rename the article's title, or import into another corpus",
        )
    documents[doc] = text
    return view


def _question(
    qa: Any, view: RawView, doc: str, questions: dict[str, _Question], where: Where
) -> None:
    squad_id = need(qa, "id", str, where)
    text = clean_text(need(qa, "question", str, where))
    if not text:
        raise where.at("question").error("the question is empty")
    abstain = typed(qa.get("is_impossible", False), bool, where.at("is_impossible"))
    answers = need(qa, "answers", list, where)
    if abstain and answers:
        raise where.at("answers").error("an impossible question must have no answers")
    spans = [_answer(a, view, doc, where.at(f"answers[{i}]")) for i, a in enumerate(answers)]
    q = questions.setdefault(squad_id, _Question(where, squad_id, text, abstain))
    if q.text != text or q.abstain != abstain:
        raise where.at("id").error(f"id {squad_id!r} is used by another question at {q.where.key}")
    distinct = list(dict.fromkeys(spans))
    q.spans.extend(distinct[:1])
    q.others.extend(f"{s.quote!r} at {s.doc} {s.start}..{s.end}" for s in distinct[1:])


def _answer(answer: Any, view: RawView, doc: str, where: Where) -> Span:
    text = need(answer, "text", str, where)
    start = need(answer, "answer_start", int, where)
    return raw_span(view, doc, start, start + len(text), text, where)


def _queries(questions: Iterable[_Question], existing: Sequence[Query]) -> tuple[Query, ...]:
    questions = list(questions)
    kept = [q.squad_id for q in questions if valid_id(q.squad_id)]
    ids = FreshIds.after(existing, kept)
    out: list[Query] = []
    for q in questions:
        spans = tuple(dict.fromkeys(q.spans))
        out.append(
            q.where.query(
                QUESTION,
                id=q.squad_id if valid_id(q.squad_id) else ids.next(),
                text=q.text,
                abstain=q.abstain,
                boundary=Boundary.OTHER,
                slices=(SLICE,),
                notes=f"other SQuAD answers: {'; '.join(q.others)}" if q.others else "",
                status=Status.LABELLED if spans or q.abstain else Status.DRAFT,
                evidence=spans,
            )
        )
    return tuple(out)


def write(queries: Sequence[Query], corpus: Corpus, out: Path) -> None:
    """SQuAD v2.0: one article per document (title = its id, context = canonical text).

    A query's spans in a document are that question's answers there; queries without
    evidence sit in the first document, impossible when they are abstentions.
    """
    qas: dict[str, list[dict[str, Any]]] = {doc.id: [] for doc in corpus}
    for q in queries:
        for doc in dict.fromkeys(s.doc for s in q.evidence):
            answers = [_answer_json(s, corpus) for s in q.evidence if s.doc == doc]
            qas[doc].append(_qa(q, answers))
        if not q.evidence:
            if not qas:
                raise LabelError(f"query {q.id} has no document to sit in: the corpus is empty")
            qas[next(iter(qas))].append(_qa(q, []))
    data = [
        {"title": doc, "paragraphs": [{"context": corpus.text(doc), "qas": items}]}
        for doc, items in qas.items()
    ]
    write_atomic(out, json_text({"version": "v2.0", "data": data}))


def _qa(q: Query, answers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": q.id, "question": q.text, "answers": answers, "is_impossible": q.abstain}


def _answer_json(span: Span, corpus: Corpus) -> dict[str, Any]:
    span.check(corpus.text(span.doc))
    return {"text": span.quote, "answer_start": span.start}
