"""Where a Label Studio result's span lies: the task's document (named, or found by its
text), and offsets in code points or, for an older Label Studio, UTF-16 units.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.formats._common import RawView, Where, raw_span
from labeler.core.formats.label_studio_write import DOC_KEYS, META_KEYS
from labeler.core.typed import need, typed
from labeler.core.values import Span


def _text_key(data: dict[str, Any], result: dict[str, Any]) -> str | None:
    """The `data` key holding the labelled text: the one the result's `to_name` names (the
    Text control's `value="$KEY"`, usually the same name; `document` too), `text`, or the
    only other string in `data` that is not a short document id."""
    to_name = result.get("to_name")
    if isinstance(to_name, str) and isinstance(data.get(to_name), str):
        return to_name
    if isinstance(data.get("text"), str):
        return "text"
    others = [k for k, v in data.items() if isinstance(v, str)
              and (k not in META_KEYS or (k in DOC_KEYS and not _is_id(v)))]  # fmt: skip
    return others[0] if len(others) == 1 else None


MAX_DOC_ID = 255
"""A `data` value longer than this, or holding a line break, is text, never a document id."""


def _is_id(value: str) -> bool:
    return len(value) <= MAX_DOC_ID and "\n" not in value


def _doc_id(data: dict[str, Any], key: str | None, where: Where) -> tuple[str, str] | None:
    """(data key, document id): the first of DOC_KEYS that is not the text key and holds
    a short one-line string."""
    for k in DOC_KEYS:
        value = data.get(k)
        if k == key or value is None:
            continue
        doc = typed(value, str, where.at(f"data.{k}"))
        if _is_id(doc):
            return k, doc
    return None


def _document(
    data: dict[str, Any],
    key: str | None,
    corpus: Corpus,
    by_text: dict[str, list[str]],
    where: Where,
) -> tuple[str, RawView]:
    found = _doc_id(data, key, where)
    doc_key, doc = found if found else (None, None)
    if doc is not None and doc not in corpus:
        raise where.at(f"data.{doc_key}").error(f"document {doc!r} is not in the corpus")
    if key is None:
        if doc is None:
            raise where.at("data.text").error("the task has labels but no text and no document")
        return doc, RawView(corpus.text(doc))
    view = RawView(data[key])
    if doc is not None:
        if view.canonical != corpus.text(doc):
            raise where.at(f"data.{key}").error(
                f"the task text differs from document {doc}", hint="run `spanlab review`"
            )
        return doc, view
    docs = by_text.get(view.canonical, [])
    if len(docs) != 1:
        problem = "matches no document" if not docs else f"matches {', '.join(docs)}"
        raise where.at(f"data.{key}").error(
            f"the task text {problem}; name the document in data.doc"
        )
    return docs[0], view


@dataclass(frozen=True)
class Context:
    """What reading one task's spans needs besides the task."""

    corpus: Corpus
    """The corpus the tasks refer to."""
    by_text: dict[str, list[str]]
    """{canonical text: doc ids}, to find a task's document by its text."""
    task: Where
    """The task, for errors about the task as a whole."""
    warnings: list[str]
    """Where to note offsets read as UTF-16 units."""
    views: dict[str | None, tuple[str, RawView]] = field(default_factory=dict)
    """The task's document and view, by the `data` key holding its text."""


def span_of(data: dict[str, Any], result: dict[str, Any], ctx: Context, where: Where) -> Span:
    key = _text_key(data, result)
    if key not in ctx.views:
        ctx.views[key] = _document(data, key, ctx.corpus, ctx.by_text, ctx.task)
    doc, view = ctx.views[key]
    value = need(result, "value", dict, where)
    vw = where.at("value")
    start = need(value, "start", int, vw)
    end = need(value, "end", int, vw)
    quote = typed(value.get("text"), (str, type(None)), vw.at("text"))
    raw = data[key] if key is not None else ctx.corpus.text(doc)
    cp = _offsets(raw, start, end, quote, vw)
    if cp != (start, end):
        ctx.warnings.append(
            f"{vw.file}, {vw.key}: offsets {start}..{end} read as UTF-16 units "
            f"(an older Label Studio), i.e. code points {cp[0]}..{cp[1]}"
        )
    return raw_span(view, doc, cp[0], cp[1], None, vw)


def _offsets(raw: str, start: int, end: int, quote: str | None, where: Where) -> tuple[int, int]:
    """Code-point offsets of the span: as given, or read as UTF-16 units if only that
    makes the quote match. Offsets out of range are left for the range check."""
    if quote is None or _same(raw[start:end], quote):
        return start, end
    units = list(itertools.accumulate((2 if ord(c) > 0xFFFF else 1 for c in raw), initial=0))
    s, e = bisect.bisect_left(units, start), bisect.bisect_left(units, end)
    exact = s < len(units) and e < len(units) and units[s] == start and units[e] == end
    if units[-1] != len(raw) and exact and _same(raw[s:e], quote):
        return s, e
    if not 0 <= start < end <= len(raw):
        return start, end
    raise where.error(
        f"value.text {quote[:40]!r} does not match the task text at {start}..{end} "
        f"({raw[start:end][:40]!r})",
        offset=start,
    )


def _same(found: str, quote: str) -> bool:
    return found == quote or found.split() == quote.split()
