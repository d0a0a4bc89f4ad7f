"""`spanlab show` as text: a query's evidence with both candidates' cuts and top-k lists.

The plain-text boundary view, for a terminal without the TUI; it reads the run folder
and re-cuts the evidence documents the way the run did (`boundary.candidate_spec`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.runs import index as runs_index
from evaluator.runs.boundary import (
    candidate_spec,
    chunks_for_doc,
    doc_view,
    ranked_table,
    render_plain,
)
from labeler.core.corpus import Corpus
from labeler.core.errors import SpanlabError

CAUSE_WORDS = {
    "cut": "no chunk holds the evidence; a boundary split it",
    "crowded": "a chunk holds it, but ranks below k",
    "disappeared": "no matching chunk within depth",
}


def load_run(runs_dir: Path, run: str) -> dict[str, Any]:
    """run.json of a run given by folder, id, unique id prefix or `latest`."""
    folder = Path(run) if Path(run).is_dir() else runs_index.find_run(runs_dir, run).folder
    path = Path(folder) / "run.json"
    if not path.exists():
        raise SpanlabError("no such run", file=str(path))
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def ranks_text(ranks: Any, k: int) -> str:
    """First-match ranks in words: crowding (rank > k) reads apart from disappearance."""
    if ranks is None:
        return "abstention query: no evidence"
    words = []
    for r in ranks:
        if r is None:
            words.append("none within depth (disappeared)")
        else:
            words.append(f"{r}" + (" (crowded: below k)" if r > k else ""))
    return ", ".join(words)


def show_text(
    data: dict[str, Any],
    query: str,
    candidate: str | None,
    corpus: Corpus,
    texts: dict[str, str] | None = None,
) -> str:
    if query not in data["queries"]:
        raise SpanlabError(f"no query {query!r} in run {data['id']}", key="query")
    if data["manifest"]["corpus_hash"] != corpus.hash:
        raise SpanlabError(
            f"run {data['id']} was made on corpus {data['manifest']['corpus_hash']}, "
            f"the corpus folder is {corpus.hash}"
        )
    names = list(data["candidates"])
    base = next(n for n in names if data["candidates"][n]["baseline"])
    other = candidate or next((n for n in names if n != base), base)
    if other not in data["candidates"]:
        raise SpanlabError(f"no candidate {other!r} in run {data['id']}", key="candidate")
    k = int(data["manifest"]["settings"]["k"])
    entry = data["queries"][query]
    specs = {n: candidate_spec(data, n) for n in (base, other)}
    kind = "abstention query" if entry["abstain"] else entry["boundary"]
    lines = [f"{query}  {kind}  {', '.join(entry['slices'])}"]
    if texts and query in texts:
        lines.append(f"“{texts[query]}”")
    for i, ev in enumerate(entry["evidence"], 1):
        lines.append(f"evidence e{i}: {ev['doc']} {ev['start']}..{ev['end']}")
    change = entry["candidates"][other]
    if change["status"]:
        cause = f" ({change['cause']}: {CAUSE_WORDS[change['cause']]})" if change["cause"] else ""
        lines.append(f"{other} vs {base}: {change['status']}{cause}")
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for ev in entry["evidence"]:
        by_doc.setdefault(ev["doc"], []).append((ev["start"], ev["end"]))
    for doc, spans in by_doc.items():
        text = corpus.text(doc)
        view = doc_view(doc, text, spans, chunks_for_doc(specs[base], corpus, doc),
                        chunks_for_doc(specs[other], corpus, doc))  # fmt: skip
        legend = f"⟦evidence⟧  ┃b {base}  ┆c {other}  ‖ both"
        lines += ["", f"── {doc} {view.start}..{view.end}   {legend}", render_plain(view, text)]
    for name in (base, other):
        values = entry["candidates"][name]["values"]
        ranks = ranks_text(values.get("first_match_rank"), k)
        lines += ["", f"top {k} — {name}  (first match: {ranks})"]
        lines += ranked_table(entry["candidates"][name], k)
    return "\n".join(lines)
