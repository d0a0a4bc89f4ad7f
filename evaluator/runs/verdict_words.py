"""What a verdict depends on, in words every human-read output shares (§7, §9): the
settings line, a figure under both match rules side by side, and whether a loss holds
under both rules or only under the declared one.

report.md, the terminal and job summaries, `gate`, `diff` and triage all call these, so
the rule, the depth and the candidates file are named the same way everywhere.
"""

from __future__ import annotations

import hashlib

from evaluator.metrics.compare import Status
from evaluator.metrics.registry import shown
from evaluator.runs.budget_text import budget_items
from evaluator.runs.model import RunFile
from evaluator.runs.model_queries import QueryResult

RULE_NOTES = {
    "chunk": "one chunk per span",
    "union": "split evidence counted",
}
"""What each match rule means, in a reader's words: `union` counts a span the top k
cover together; `chunk` wants one chunk that matches it."""


def embedding_name(run: RunFile) -> str:
    settings = run.manifest.settings
    if settings.retriever == "lexical":
        return "none (lexical)"
    return run.manifest.model_id or settings.embedding


def fingerprint_short(run: RunFile) -> str:
    """The embedding fingerprint, shortened to a digest a reader can compare (`3f0a9c12e4b7`);
    empty when no model was loaded."""
    found = run.manifest.embedding.get("fingerprint")
    if not found:
        return ""
    return hashlib.sha256(str(found).encode("utf-8")).hexdigest()[:12]


def short_hash(digest: str) -> str:
    """`sha256:1fbb400fd44a…` — enough to tell two files apart on one line."""
    return digest[:19] + "…" if len(digest) > 20 else digest


def _embedding(run: RunFile) -> str:
    fp = fingerprint_short(run)
    return embedding_name(run) + (f" fp {fp}" if fp else "")


def settings_items(run: RunFile) -> list[tuple[str, str]]:
    """The settings a verdict depends on (§9), as (name, value) pairs, in reading order."""
    s, cfile = run.manifest.settings, run.manifest.candidates_file
    also = f" (also {run.other_match})" if run.both_rules else ""
    return [
        ("k", str(s.k)),
        ("depth", str(s.depth)),
        ("match", f"{s.match}{also}"),
        ("coverage", f"≥ {s.coverage_threshold:g}"),
        ("retriever", s.retriever),
        ("candidates", f"{cfile.path} {short_hash(cfile.hash)}".strip()),
        ("embedding", _embedding(run)),
        *budget_items(run),
    ]


def settings_line(run: RunFile) -> str:
    """`k=5 · depth=50 · match=chunk (also union) · coverage=≥ 0.8 · …` on one line."""
    return " · ".join(f"{name} {value}" for name, value in settings_items(run))


def both_rules(run: RunFile, candidate: str, measure: str) -> str:
    """`0.805 · 0.840 with split evidence counted`: the declared rule's figure, then the
    other's; the declared one alone in a run written before both were kept."""
    cand = run.candidate(candidate)
    fmt = shown(measure)
    declared = fmt.text(cand.metric(measure))
    if not run.both_rules:
        return declared
    return f"{declared} · {fmt.text(cand.metric_under(measure, False))} with {rule_note(run)}"


def rule_note(run: RunFile) -> str:
    """The other rule's meaning (`split evidence counted`)."""
    return RULE_NOTES[run.other_match]


def loss_scope(run: RunFile, candidate: str, query: str) -> str:
    """For a query lost under the declared rule: `lost under both rules`, or `lost under
    chunk only` (a hit, or unchanged, under the other); empty when the run lacks the other."""
    result = run.queries[query].candidates[candidate]
    if result.other is None:
        return ""
    if result.other.status == Status.LOST:
        return "lost under both rules"
    return f"lost under {run.match} only"


def lost_counts(run: RunFile, candidate: str) -> tuple[int, int | None]:
    """Lost queries under the declared rule and under the other (None: not recorded)."""
    lost = run.comparisons[candidate].overall.counts.lost
    other = run.other_comparisons.get(candidate)
    return lost, None if other is None else other.overall.counts.lost


def cause_text(result: QueryResult, *, declared: bool = True) -> str:
    """A lost query's cause in words under a rule: `split (retrieved in pieces: the top k
    cover 82% of it together)`, the coverage of its least-covered span of that cause."""
    cause = result.cause if declared else (result.other.cause if result.other else None)
    if cause is None:
        return "–"
    spans = range(len(result.span_causes))
    shares = [result.coverage[n] for n in spans
              if result.coverage and result.cause_under(n, declared) is cause]  # fmt: skip
    return f"{cause} ({cause.said(min(shares) if shares else None)})"
