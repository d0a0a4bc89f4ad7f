"""`spanlab show` as text: a query's evidence with both candidates' cuts and top-k lists.

The text boundary view, for a terminal without the TUI: it reads the run folder's RunFile,
re-cuts the evidence documents the way the run did (`boundary.candidate_spec`) and draws
them with `boundary_text` — text intact, cuts on ruler lines, each span's fate in words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.text import Text

from evaluator.chunk import Chunk
from evaluator.chunking.spec import SplitterSpec
from evaluator.chunking.split import parent_pieces
from evaluator.metrics.causes import Cause, percent
from evaluator.metrics.compare import Status
from evaluator.plan.anchor import anchor_words, listed_sides, span_anchor
from evaluator.plan.holds import cut_words
from evaluator.runs import index as runs_index
from evaluator.runs.boundary import (
    BASELINE_MARK,
    BOTH_MARK,
    CANDIDATE_MARK,
    PARENT_MARK,
    DocView,
    candidate_spec,
    chunks_for_doc,
    doc_view,
)
from evaluator.runs.boundary_text import (
    EVIDENCE_RULE,
    STYLES,
    fate_words,
    holder,
    inner_cuts,
    ranked_lines,
    where_text,
    window,
)
from evaluator.runs.model import RunFile, read_run
from evaluator.runs.model_queries import EvidenceRef, QueryRecord, QueryResult
from evaluator.runs.verdict_words import cause_text, loss_scope, settings_line
from labeler.core.corpus.folder import Corpus
from labeler.core.display import masked, shown
from labeler.core.errors import SpanlabError
from labeler.core.facts import Facts, facts_said


def load_run(runs_dir: Path, run: str) -> RunFile:
    """The run given by folder, id, unique id prefix or `latest`."""
    folder = Path(run) if Path(run).is_dir() else runs_index.find_run(runs_dir, run).folder
    return read_run(folder)


def ranks_text(
    ranks: Sequence[int | None] | None, k: int, result: QueryResult, match: str = "chunk"
) -> str:
    """First-match ranks in words, each missed span's cause as run.json states it. Under
    `union` a rank is where the chunks so far cover the span together, not one chunk."""
    if ranks is None:
        return "abstention query: no evidence"
    words = []
    for n, r in enumerate(ranks):
        cause = result.span_cause(n)
        if cause is None:
            words.append("none" if r is None else f"{r}")
        elif r is None:
            words.append(f"none within depth ({cause})")
        elif match == "union" and cause is not Cause.CROWDED:
            words.append(f"{r} ({cause}: covered together only there, below k)")
        else:
            words.append(f"{r} ({cause}{': below k' if r > k else ''})")
    return ", ".join(words)


def span_verdict(result: QueryResult, n: int, k: int, *, declared: bool) -> str:
    """Span `n` under one rule: `matched`, or its cause in its own words with coverage."""
    cause = result.cause_under(n, declared)
    cover = result.coverage
    share = None if cover is None else cover[n]
    if cause is None:
        return "matched within k"
    covered = "" if share is None or cause is Cause.SPLIT else f"; top {k} cover {percent(share)}"
    return f"{cause} ({cause.said(share)}{covered})"


def _pair(run: RunFile, query: str, candidate: str | None, corpus: Corpus) -> tuple[str, str]:
    """The baseline and the candidate to compare, once the run fits the query and corpus."""
    if query not in run.queries:
        raise SpanlabError(f"no query {query!r} in run {run.id}", key="query")
    if run.manifest.corpus_hash != corpus.hash:
        raise SpanlabError(
            f"run {run.id} was made on corpus {run.manifest.corpus_hash}, "
            f"the corpus folder is {corpus.hash}"
        )
    base = run.baseline.name
    other = candidate or next(iter(run.others), base)
    if other not in run.names:
        raise SpanlabError(f"no candidate {other!r} in run {run.id}", key="candidate")
    _check_docs(run, run.queries[query], corpus)
    return base, other


def _check_docs(run: RunFile, entry: QueryRecord, corpus: Corpus) -> None:
    """Every document the query's evidence and ranked lists name is in the corpus and holds
    their offsets: a run.json from elsewhere can name any (§20), with the right hash."""
    spans = [(e.doc, e.end) for e in entry.evidence]
    spans += [(r.doc, r.end) for c in entry.candidates.values() for r in (*c.ranked, *c.sent)]
    for doc, end in spans:
        if doc not in corpus:
            raise SpanlabError(f"run {run.id}: query {entry.id} names document {doc!r}, which "
                               "the corpus does not hold", key=f"queries.{entry.id}",
                               hint="is the run.json from this project?")  # fmt: skip
        if end > len(corpus.text(doc)):
            raise SpanlabError(f"run {run.id}: query {entry.id} has offsets to {end:,} in "
                               f"document {doc!r}, which is {len(corpus.text(doc)):,} long",
                               key=f"queries.{entry.id}")  # fmt: skip


def _head(run: RunFile, entry: QueryRecord, other: str, base: str, text: str | None
          ) -> list[str]:  # fmt: skip
    kind = "abstention query" if entry.abstain else entry.boundary
    lines = [f"{entry.id}  {kind}  {', '.join(entry.slices)}"]
    if text is not None:
        lines.append(f"“{text}”")
    change = entry.candidates[other]
    if change.status:
        cause = f" — {cause_text(change)}" if change.cause else ""
        scope = (
            f" · {s}"
            if change.status == Status.LOST and (s := loss_scope(run, other, entry.id))
            else ""
        )
        lines.append(f"{other} vs {base} under {run.match}: {change.status}{cause}{scope}")
    if change.other is not None and change.other.status:
        cause = f" — {cause_text(change, declared=False)}" if change.other.cause else ""
        lines.append(f"{other} vs {base} under {run.other_match}: {change.other.status}{cause}")
    return [shown(line, lines=False) for line in lines]


def _terminal_safe(line: Text) -> Text:
    """The line with every control or bidi character drawn as one placeholder: the same
    length, so the rulers under the document text keep their columns (§13)."""
    line.plain = masked(line.plain)
    return line


def sent_words(name: str, sent: Sequence[Chunk], span: EvidenceRef, k: int) -> str:
    """`tok128-parent512 sent it whole in 0..512 for its top 5` (§18), or that it did not."""
    held = holder(sent, span)
    if held is None:
        return f"{name} did not send it whole for its top {k}"
    return f"{name} sent it whole in {held.start}..{held.end} for its top {k}"


def _span_lines(n: int, entry: QueryRecord, cut: Mapping[str, Sequence[Chunk]], run: RunFile,
                place: str = "") -> list[str]:  # fmt: skip
    """`evidence e1 doc 10..20 (10 ch): base holds it whole in 0..40; cand cuts it at 15`
    (`e1 any-of 2` for an alternative of group 2), then each side's verdict under each rule,
    on its own line (never two rules in one)."""
    ev, k = entry.evidence[n], run.manifest.settings.k
    fates = "; ".join(fate_words(name, chunks, ev) for name, chunks in cut.items())
    for name in cut:  # §18: what the top k sent, beside the units the index held
        sent = [e.chunk for e in entry.candidates[name].sent[:k]]
        if sent:
            fates += f"; {sent_words(name, sent, ev, k)}"
    alt = "" if ev.group is None else f" any-of {ev.group}"  # §18: either copy will do
    where = f", {place}" if place else ""  # §22: the page of a span in a PDF
    lines = [f"evidence e{n + 1}{alt}: {ev.doc} {ev.start}..{ev.end} ({ev.end - ev.start} ch"
             f"{where}): {fates}"]  # fmt: skip
    rules = [(run.match, True)] + ([(run.other_match, False)] if run.both_rules else [])
    for name in cut:
        result = entry.candidates[name]
        said = [f"{rule}: {span_verdict(result, n, k, declared=d)}" for rule, d in rules]
        lines.append(f"    {name} — " + " · ".join(said))
    return lines


def anchor_lines(
    run: RunFile,
    entry: QueryRecord,
    question: str | None,
    corpus: Corpus,
    cut: Mapping[str, Sequence[Chunk]],
    specs: Mapping[str, SplitterSpec],
) -> list[str]:
    """Per span, what would hold it for a side that cuts it, and where the question's own
    words sit apart from it and whether each side holds the two together: `plan`'s words
    (§17)."""
    lines: list[str] = []
    threshold = run.manifest.settings.coverage_threshold
    for n, ev in enumerate(entry.evidence, 1):
        text = corpus.text(ev.doc)
        for name in cut:
            mine = [c for c in cut[name] if c.doc == ev.doc]
            said = cut_words(name, specs[name], mine, text, ev.start, ev.end, threshold)
            lines += [] if said is None else [f"e{n} {said}"]
        if not question:
            continue
        sides = listed_sides({name: (specs[name], cut[name]) for name in cut}, ev.doc, text)
        found = span_anchor(question, text, ev.start, ev.end, sides)
        if found is not None:
            lines += [f"e{n} {line}" if i == 0 else f"   {line}"
                      for i, line in enumerate(anchor_words(found))]  # fmt: skip
    return lines


def show_view(
    run: RunFile,
    query: str,
    candidate: str | None,
    corpus: Corpus,
    texts: Mapping[str, str] | None = None,
    *,
    width: int | None = None,
    facts: Facts = (),
) -> list[Text]:
    """The boundary view's lines; wrapped to `width` at word boundaries (None: not wrapped).
    `facts`: the query's answer labels (§23), from the store, listed under its question."""
    base, other = _pair(run, query, candidate, corpus)
    k = run.manifest.settings.k
    entry = run.queries[query]
    specs = {n: candidate_spec(run, n) for n in (base, other)}
    question = (texts or {}).get(query, entry.text)  # the store's, else the run's own
    lines = [Text(line) for line in _head(run, entry, other, base, question)]
    lines += [Text(shown(line, lines=False)) for line in facts_said(facts)]
    lines.append(Text(settings_line(run), "dim"))
    docs = list(dict.fromkeys(ev.doc for ev in entry.evidence))
    cut = {n: [c for d in docs for c in chunks_for_doc(specs[n], corpus, d)] for n in specs}
    places = [corpus.place(ev.doc, ev.start, ev.end) for ev in entry.evidence]
    lines += [Text(t) for n in range(len(entry.evidence))
              for t in _span_lines(n, entry, cut, run, places[n])]  # fmt: skip
    lines += [Text(t) for t in anchor_lines(run, entry, question, corpus, cut, specs)]
    for doc in docs:
        parents = sent_parents(specs, corpus.text(doc), doc)
        lines += _doc_lines(entry, doc, corpus.text(doc), cut, width, parents)
    pair = dict.fromkeys((base, other))
    # One column width for both lists, so long paths do not shift the coverage columns.
    where_width = max((len(where_text(e)) for n in pair
                       for e in entry.candidates[n].ranked[:k]), default=0)  # fmt: skip
    for name in pair:
        result = entry.candidates[name]
        ranks = ranks_text(result.first_match_ranks, k, result, run.match)
        head = f"top {k} — {name}  (first match under {run.match}: {ranks})"
        lines += [Text(""), Text(head, "bold")]
        lines += [Text(row) for row in ranked_lines(result, k, entry.evidence, where_width)]
    return [_terminal_safe(line) for line in lines]


def sent_parents(specs: Mapping[str, SplitterSpec], text: str, doc: str
                 ) -> dict[str, list[tuple[int, int]]]:  # fmt: skip
    """Per side that sends parents (§18), its parents in `doc`, cut as the run cut them."""
    return {name: [(p.start, p.end) for p in parent_pieces(spec, text, doc).parents]
            for name, spec in specs.items()
            if spec.context is not None and spec.context.parent is not None}  # fmt: skip


def parent_legend(view: DocView, parents: Mapping[str, Sequence[tuple[int, int]]]) -> list[Text]:
    """`┃ tok128-parent512 sends parents 0..2210, 2210..4400`: those the window meets."""
    lines = []
    for name, spans in parents.items():
        met = [f"{a}..{b}" for a, b in spans if a < view.end and b > view.start]
        lines.append(Text.assemble((PARENT_MARK, STYLES[PARENT_MARK]),
                                   f" {name} sends parents {', '.join(met)}"))  # fmt: skip
    return lines


def _doc_lines(entry: QueryRecord, doc: str, text: str, cut: Mapping[str, Sequence[Chunk]],
               width: int | None, parents: Mapping[str, Sequence[tuple[int, int]]]
               ) -> list[Text]:  # fmt: skip
    names = list(cut)
    base, other = names[0], names[-1]  # one name when the baseline is shown alone
    spans = [(ev.start, ev.end) for ev in entry.evidence if ev.doc == doc]
    every = [p for side in parents.values() for p in side]
    view = doc_view(doc, text, spans, cut[base], cut[other], parents=every)
    broke = {x for ev in entry.evidence if ev.doc == doc for chunks in cut.values()
             if holder(chunks, ev) is None for x in inner_cuts(chunks, ev)}  # fmt: skip
    legend = Text.assemble(
        f"── {doc} {view.start}..{view.end}   ", (BASELINE_MARK, STYLES[BASELINE_MARK]),
        f" {base}  ", (CANDIDATE_MARK, STYLES[CANDIDATE_MARK]), f" {other}  ",
        (BOTH_MARK, STYLES[BOTH_MARK]), f" both  {EVIDENCE_RULE} evidence",
    ) if base != other else Text.assemble(
        f"── {doc} {view.start}..{view.end}   ", (BOTH_MARK, STYLES[BOTH_MARK]),
        f" {base} (the baseline alone)  {EVIDENCE_RULE} evidence",
    )  # fmt: skip
    # One column spare: a ruler marks a cut at a line's end one column past its text.
    wrap = None if width is None else max(20, width - 1)
    return [
        Text(""),
        legend,
        *parent_legend(view, parents),
        *window(view, text, spans, broke, wrap),
    ]


def show_text(
    run: RunFile,
    query: str,
    candidate: str | None,
    corpus: Corpus,
    texts: Mapping[str, str] | None = None,
    *,
    width: int | None = None,
    facts: Facts = (),
) -> str:
    """The boundary view as plain text (what `spanlab show` prints when piped)."""
    view = show_view(run, query, candidate, corpus, texts, width=width, facts=facts)
    return "\n".join(line.plain.rstrip() for line in view)
