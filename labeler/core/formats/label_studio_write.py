"""Writing Label Studio tasks (`label-studio`, §4), and the `data` keys spanlab's tasks
carry, which the reader (`label_studio`) skips when it looks for the task text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import Wrote
from labeler.core.formats._common import json_text, write_atomic
from labeler.core.store.rows import Version
from labeler.core.values import Query, Span

DOC_KEYS = ("doc", "document", "doc_id")
QUESTION_KEYS = ("question", "query")
META_KEYS = frozenset(
    {
        "query_id",
        "abstain",
        "boundary",
        "slices",
        "status",
        "notes",
        "annotators",
        "groups",
        "places",
        "facts",
        *DOC_KEYS,
        *QUESTION_KEYS,
    }
)
"""`data` keys that never hold the task text."""


@dataclass(frozen=True)
class Names:
    """The labelling config's names an export writes (Label Studio matches each result to
    its config by `from_name` / `to_name`, and reads the text from `data[text_key]`)."""

    from_name: str = "label"
    """The Labels control's `name`."""
    to_name: str = "text"
    """The Text object's `name`, the Labels' `toName`."""
    text_key: str = "text"
    """The `data` key the Text object's `value="$KEY"` reads."""
    label: str = "evidence"
    """The Label `value` every span gets."""

    def __post_init__(self) -> None:
        for option, value in (("--from-name", self.from_name), ("--to-name", self.to_name),
                              ("--text-key", self.text_key)):  # fmt: skip
            if not value or not value.isidentifier():
                raise LabelError(f"{option} {value[:40]!r} is not a name (letters, digits, _)",
                                 key=option)  # fmt: skip
        if self.text_key in META_KEYS:
            raise LabelError(f"--text-key {self.text_key!r} is a key spanlab writes itself "
                             f"({', '.join(sorted(META_KEYS))})", key="--text-key")  # fmt: skip


def write(
    queries: Sequence[Query],
    corpus: Corpus,
    out: Path,
    *,
    names: Names = Names(),
    waiting: Sequence[tuple[Query, Sequence[Version]]] = (),
) -> Wrote:
    """Every query, as tasks Label Studio's importer takes (label_studio 1.23.2,
    tasks/validation.py TaskValidator: `data[text_key]` present and a string in every task;
    annotations a list of objects with a `result` list; no `completed_by`, which must be a
    member's email or id there). A query with evidence: one task per document. An
    abstention or a query without evidence: one task with empty text (an abstention gets an
    empty annotation). A query waiting for adjudication: one task per document its versions
    touch, one annotation per version, the annotators named in `data.annotators`."""
    tasks: list[dict[str, Any]] = []
    for q in queries:
        tasks += _tasks(q, [Version(q.annotator, q.abstain, q.evidence)], corpus, names, False)
    for q, versions in waiting:
        tasks += _tasks(q, list(versions), corpus, names, True)
    write_atomic(out, json_text(tasks))
    abstain = sum(1 for q in queries if q.abstain and not q.evidence)
    empty = sum(1 for q in queries if not q.abstain and not q.evidence)
    kinds = (("abstentions (empty text)", abstain), ("without evidence (empty text)", empty),
             ("waiting for adjudication (one annotation per version)", len(waiting)))  # fmt: skip
    notes = tuple(f"{n} quer(y/ies) {what}" for what, n in kinds if n)
    return Wrote(len(queries) + len(waiting), len(tasks), warnings=notes)


def _tasks(
    q: Query, versions: list[Version], corpus: Corpus, names: Names, several: bool
) -> list[dict[str, Any]]:
    docs = list(dict.fromkeys(s.doc for v in versions for s in v.spans))
    data: dict[str, Any] = _data(q)
    if several:
        data["annotators"] = [v.annotator for v in versions]
    if not docs:
        annotations: list[dict[str, Any]] = [
            {"result": []} for v in versions if several or v.abstain
        ]
        return [{"data": {names.text_key: "", **data}, "annotations": annotations}]
    out = []
    for doc in docs:
        text = corpus.text(doc)
        annotations = [{"result": [_result(q, n, s, text, names) for n, s in enumerate(v.spans)
                                   if s.doc == doc]} for v in versions]  # fmt: skip
        task: dict[str, Any] = {names.text_key: text, "doc": doc, **data}
        # A result's id is `{query id}-{n}` (`_result`): the group goes beside it.
        groups = {f"{q.id}-{n}": s.group for v in versions for n, s in enumerate(v.spans)
                  if s.doc == doc and s.group is not None}  # fmt: skip
        if groups:
            task["groups"] = groups
        # §22: where each span is in a PDF, HTML or DOCX source (`page 2`), by result id.
        places = {f"{q.id}-{n}": where for v in versions for n, s in enumerate(v.spans)
                  if s.doc == doc and (where := corpus.place(doc, s.start, s.end))}  # fmt: skip
        if places:
            task["places"] = places
        out.append({"data": task, "annotations": annotations})
    return out


def _data(q: Query) -> dict[str, Any]:
    data = {
        "question": q.text, "query_id": q.id, "abstain": q.abstain,
        "boundary": q.boundary.value, "slices": list(q.slices), "status": q.status.value,
        "notes": q.notes,
    }  # fmt: skip
    return {**data, "facts": [list(f) for f in q.facts]} if q.facts else data


def _result(q: Query, n: int, span: Span, text: str, names: Names) -> dict[str, Any]:
    span.check(text)
    value = {"start": span.start, "end": span.end, "text": span.quote, "labels": [names.label]}
    return {
        "id": f"{q.id}-{n}", "from_name": names.from_name, "to_name": names.to_name,
        "type": "labels", "value": value,
    }  # fmt: skip
