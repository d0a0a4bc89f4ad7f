"""`spanlab review`: the stale-span review screen, or a read-only list for scripts (§8, §10).

`--list` reads the store without syncing it, so it changes nothing, and never imports
Textual; the screen is imported only when it is opened.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from evaluator.runs.place import RUNS_DIR
from labeler.cli._common import (
    AnnotatorOpt,
    CorpusOpt,
    DbOpt,
    ThemeOpt,
    checked,
    corpus_source,
    handles_errors,
    member,
    project,
    read_corpus,
    say,
)
from labeler.core.anchoring import binding
from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.team.roles import Act
from labeler.core.team.visibility import BLIND_WHY, Sight

if TYPE_CHECKING:
    from labeler.core.anchoring import review  # re-anchoring (rapidfuzz): imported when used

EXAMPLE = "Example: spanlab review --list --json > stale.json"
QUOTE_WIDTH = 72
"""Characters of a quote shown in the table before it is cut."""


app = typer.Typer()
"""`review`, at the top of the command line."""


@app.command("review", epilog=EXAMPLE)
@handles_errors
def review_command(
    list_only: Annotated[
        bool, typer.Option("--list", help="Print stale spans and candidates; change nothing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With --list: print JSON.")] = False,
    annotator: AnnotatorOpt = None,
    theme: ThemeOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
) -> None:
    """Decide, span by span, where stale labels went after the corpus changed."""
    proj = project(corpus, db)
    who = member(proj, annotator, None if list_only or as_json else Act.REVIEW)
    docs = read_corpus(proj)
    store = checked(Store.open(proj.db, create=False))
    try:
        if list_only or as_json:
            from labeler.core.anchoring import review

            items = review.proposals(store, docs, sight=Sight(who, proj.blind))
            say(render_json(store, docs, items) if as_json else render_table(items))
            left = review.summary(store, docs).waiting - len(items)
            if left:
                say(f"note: {left} span(s) of another's undecided version also wait for a "
                    f"lead's review: {BLIND_WHY}", err=True)  # fmt: skip
            return
        binding.sync(store, docs)
        from labeler.tui.launch import run_app  # Textual loads only for the screen

        run_app(store, docs, annotator=who.name, member=who, screen="review",
                theme=theme, runs_dir=proj.root / RUNS_DIR, trim_spans=proj.trim_spans,
                source=corpus_source(proj), blind=proj.blind)  # fmt: skip
    finally:
        store.close()


def render_json(store: Store, docs: Corpus, items: list[review.Proposed]) -> str:
    from labeler.core.anchoring import review

    report: dict[str, Any] = {
        "bound_hash": store.corpus_hash,
        "corpus_hash": docs.hash,
        "waiting": len(items),
        "spans": [review.proposed_json(i) for i in items],
    }
    return json.dumps(report, indent=2, ensure_ascii=False)


def render_table(items: list[review.Proposed]) -> str:
    """Each waiting span, its old quote, and every candidate with the parts of its score."""
    if not items:
        return "no span waits for review"
    lines = []
    for item in items:
        p, s = item.pending, item.pending.span
        lines.append(f"{p.query_id}  span {s.id}  {s.doc}  {s.start}–{s.end}  {p.state.value}")
        lines.append(f"  old    “{shorten(s.quote)}”")
        for rank, c in enumerate(item.proposal.candidates, start=1):
            parts = c.parts
            lines.append(
                f"  {rank}  {c.kind:<5}  {c.start}–{c.end}  score {c.score:.3f}  "
                f"quote {parts.quote:.2f}  prefix {parts.prefix:.2f}  "
                f"suffix {parts.suffix:.2f}  distance {parts.distance:.2f}"
            )
        if item.proposal.orphaned:
            lines.append(f"  -  orphan proposed: {item.proposal.reason}")
        lines.append("")
    stale = sum(i.pending.state.value == "stale" for i in items)
    lines.append(
        f"{len(items)} span(s) wait for review ({stale} stale, {len(items) - stale} orphaned)"
    )
    return "\n".join(lines)


def shorten(quote: str) -> str:
    flat = quote.replace("\n", "⏎")
    return flat if len(flat) <= QUOTE_WIDTH else flat[: QUOTE_WIDTH - 1] + "…"
