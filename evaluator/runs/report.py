"""report.md (§9): a run in tables that fit a CI job summary, written from its RunFile.

Offsets and hashes only: no document, chunk or query text appears unless the run was made
with `--include-text`. Every figure is labelled and formatted by the measure registry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.metrics.causes import legend
from evaluator.metrics.compare import Comparison, Status
from evaluator.metrics.registry import (
    CHROMA_IOU,
    CHROMA_PRECISION,
    CHROMA_PRECISION_OMEGA,
    CHROMA_RECALL,
    CHUNK_COUNT,
    DUPLICATES,
    HIT,
    ORACLE,
    PROMPT_TOKENS,
    RECALL,
    shown,
)
from evaluator.runs.budget_text import basis_name, budget_md, flags
from evaluator.runs.extraction_text import extraction_md
from evaluator.runs.frontier import frontier_points
from evaluator.runs.gate_text import gate_basis
from evaluator.runs.gate_text import number as gate_number
from evaluator.runs.generation_text import answer_flags, answers_md
from evaluator.runs.model import RunFile
from evaluator.runs.model_parts import CandidateRecord
from evaluator.runs.review_view import BREAKDOWNS, answerable_by, review_rows
from evaluator.runs.review_view import COLUMNS as REVIEW_COLUMNS
from evaluator.runs.review_view import LEGEND as REVIEW_LEGEND
from evaluator.runs.verdict_words import loss_scope, rule_note, settings_items
from labeler.core.display import markdown_text
from labeler.core.display import shown as displayed

PUBLISHED = (
    "Published beside these (Chroma, *Evaluating Chunking Strategies for Retrieval*, 2024, "
    "all-MiniLM-L6-v2): tokens 250/125 recall 82.4; recursive 200/0 recall 76.6, IoU 4.1 — "
    "compare with C-recall and IoU × 100."
)
COLUMNS = (RECALL, HIT, ORACLE, CHROMA_RECALL, CHROMA_PRECISION, CHROMA_IOU,
           CHROMA_PRECISION_OMEGA, DUPLICATES, PROMPT_TOKENS, CHUNK_COUNT)  # fmt: skip
"""The candidates table's figures, by registry name."""
PRESET_WITH_PUBLISHED = "preset:chroma-report"
"""The candidates whose published numbers the report quotes."""


def _fmt(value: Any, pattern: str) -> str:
    return "–" if value is None else pattern.format(value)


def skipped_note(run: RunFile) -> str | None:
    """The queries left out, orphaned ones named as such (never called drafts)."""
    orphaned = run.manifest.orphaned_queries
    drafts = [q for q in run.manifest.skipped_queries if q not in orphaned]
    parts = []
    if drafts:
        parts.append(f"{len(drafts)} quer(y/ies) without evidence and not marked abstain were "
                     f"left out (drafts not yet labelled): {_listed(drafts)}")  # fmt: skip
    if orphaned:
        parts.append(f"{len(orphaned)} labelled quer(y/ies) were left out because their "
                     f"evidence was orphaned by a corpus change (label them again or mark "
                     f"abstain): {_listed(orphaned)}")  # fmt: skip
    return "; ".join(parts) or None


def ranked_skips(run: RunFile) -> list[str]:
    """Each candidate whose ranked file had bad lines skipped (`ranked_skip_bad`, §19): a
    line with the count, then one a named line (file:line: why); and each whose items
    given as text were located only with whitespace ignored (§24), how many of how many."""
    out: list[str] = []
    for cand in run.candidates:
        out += _located_note(cand.name, cand.index.get("text_located"))
        count, file = cand.index.get("ranked_skipped"), cand.index.get("ranked_file")
        if not isinstance(count, int) or not count:
            continue
        out.append(f"candidate {cand.name!r}: skipped {count} bad line(s) of {file} "
                   "(ranked_skip_bad)")  # fmt: skip
        named = cand.index.get("ranked_skipped_lines")
        for one in named if isinstance(named, list) else []:
            if isinstance(one, Mapping):  # a run.json is outside text: shape not assumed
                out.append(f"  {file}:{one.get('line')}: {one.get('message')}")
    return out


def _located_note(name: str, located: object) -> list[str]:
    if not isinstance(located, Mapping):
        return []
    normalised, exact = located.get("normalised"), located.get("exact")
    if not isinstance(normalised, int) or not isinstance(exact, int) or not normalised:
        return []
    share = normalised / (normalised + exact)
    return [
        f"candidate {name!r}: {normalised:,} of {normalised + exact:,} ranked items given "
        f"as text ({share:.0%}) were located with whitespace ignored "
        f"({displayed(str(located.get('rule')))})"
    ]


def _listed(ids: Sequence[str]) -> str:
    return ", ".join(ids[:8]) + (" …" if len(ids) > 8 else "")


def report_md(run: RunFile) -> str:
    include_text = run.manifest.include_text
    lines = [*_head(run), *_candidates_table(run), "", *review_table(run), "", *rules_table(run),
             "", *budget_md(run)]  # fmt: skip
    if run.manifest.candidates_file.path == PRESET_WITH_PUBLISHED:
        lines += ["", PUBLISHED]
    lines += ["", *frontier_table(run), "", "## Gates", "", *_gates_table(run)]
    lines += breakdown_tables(run)
    for name, comp in run.comparisons.items():
        lines += _changes(run, name, comp)
    lines += answers_md(run)
    lines += ["", f"_Causes under `{run.match}`: {legend(run.match)}._"]
    if run.extraction is not None:
        lines += extraction_md(run.extraction)
    lines += [
        "",
        "Run folder holds offsets and hashes only"
        + (" — and text, because --include-text was given." if include_text else "."),
    ]
    return "\n".join(lines) + "\n"


def _head(run: RunFile) -> list[str]:
    settings = run.manifest.settings
    verdict = "**PASS**" if run.passed else "**FAIL**"
    queries = run.queries.values()
    named = " · ".join(f"{name} `{value}`" for name, value in settings_items(run))
    return [
        f"# spanlab run {run.id} — {verdict}",
        "",
        f"{len(queries)} queries ({sum(q.answerable for q in queries)} answerable)"
        f" · baseline `{settings.baseline}` · gates decided under match `{run.match}`",
        "",
        named,
        "",
        *([f"_{note}_", ""] if (note := skipped_note(run)) else []),
    ]


RULE_COLUMNS = (RECALL, HIT, ORACLE)
"""The figures the match rule changes, shown under both rules side by side."""


def rules_table(run: RunFile) -> list[str]:
    """Each candidate under the declared rule and the other, side by side (§7)."""
    if not run.both_rules:
        return ["_This run was written before both match rules were kept: "
                f"only `{run.match}` is recorded._"]  # fmt: skip
    heads = " | ".join(shown(n).short for n in RULE_COLUMNS)
    lines = [f"## Both match rules: `{run.match}` (gates) · `{run.other_match}` "
             f"({rule_note(run)})", "", f"| candidate | {heads} | lost | Δ recall |",
             "|---" * (len(RULE_COLUMNS) + 3) + "|"]  # fmt: skip
    for cand in run.candidates:
        cells = [_pair_text(cand, n) for n in RULE_COLUMNS]
        comp, other = run.comparisons.get(cand.name), run.other_comparisons.get(cand.name)
        if comp is None or other is None:
            cells += ["baseline", ""]
        else:
            recall = shown(RECALL)
            cells += [f"{comp.overall.counts.lost} · {other.overall.counts.lost}",
                      f"{recall.delta_text(comp.overall.deltas.get(RECALL))} · "
                      f"{recall.delta_text(other.overall.deltas.get(RECALL))}"]  # fmt: skip
        lines.append(f"| `{cand.name}` | " + " | ".join(cells) + " |")
    return lines


def _pair_text(cand: CandidateRecord, name: str) -> str:
    fmt = shown(name)
    return f"{fmt.text(cand.metric(name))} · {fmt.text(cand.metric_under(name, False))}"


def frontier_table(run: RunFile) -> list[str]:
    """The frontier as a table, so a job summary is whole without the image (§9)."""
    heads = [shown(n) for n in (CHUNK_COUNT, RECALL, DUPLICATES)]
    lines = ["## Frontier", "", "| candidate | " + " | ".join(h.short for h in heads) + " |",
             "|---" * (1 + len(heads)) + "|"]  # fmt: skip
    for p in frontier_points(run):
        cells = [heads[0].text(p.chunk_count), heads[1].text(p.recall),
                 heads[2].text(p.duplicate_pairs)]  # fmt: skip
        lines.append(f"| `{p.name}`{' (baseline)' if p.baseline else ''} | {' | '.join(cells)} |")
    return [*lines, "", "_The same points are plotted in `frontier.svg` in the run folder._"]


def _candidates_table(run: RunFile) -> list[str]:
    lines = [
        "| candidate | " + " | ".join(shown(n).short for n in COLUMNS)
        + " | gained at k | lost at k | Δ recall@k [95% CI] | McNemar p |",
        "|---" * (len(COLUMNS) + 5) + "|",
    ]  # fmt: skip
    for cand in run.candidates:
        cells = [shown(n).text(cand.metric(n)) for n in COLUMNS]
        comp = run.comparisons.get(cand.name)
        extra = ["baseline", "", "", ""] if comp is None else _comparison_cells(comp)
        lines.append(f"| `{cand.name}` | " + " | ".join(cells + extra) + " |")
    return lines


def review_table(run: RunFile) -> list[str]:
    """Evidence relevance beside context completeness, and the costs (§17)."""
    heads = [c.head for c in REVIEW_COLUMNS]
    lines = ["## Evidence and cost", "", "| candidate | " + " | ".join(heads) + " |",
             "|---" * (1 + len(heads)) + "|"]  # fmt: skip
    lines += [f"| `{name}` | " + " | ".join(cells) + " |" for name, cells in review_rows(run)]
    return [*lines, "", f"_{REVIEW_LEGEND}._"]


def _comparison_cells(comp: Comparison) -> list[str]:
    sig = comp.significance
    ci = sig.recall_interval
    ci_text = "" if ci is None else f" [{ci.low:+.3f}, {ci.high:+.3f}]"
    p = "too small" if not sig.decisive else _fmt(sig.mcnemar_p, "{:.3g}")
    delta = shown(RECALL).delta_text(comp.overall.deltas.get(RECALL))
    counts = comp.overall.counts
    return [str(counts.gained), str(counts.lost), delta + ci_text, p]


def _gates_table(run: RunFile) -> list[str]:
    """Each candidate's verdict on its own gates, then every gate, value against limit."""
    if not run.gates:
        return ["No gates declared."]
    verdicts = " · ".join(
        f"`{n}`{' (baseline)' if n == run.baseline.name else ''} "
        f"{'pass' if run.passed_for(n) else '**FAIL**'}"
        for n in run.gated
    )
    flagged = [f"- **flag** {line}" for line in flags(run)]
    flagged += [f"- **flag** {markdown_text(line)}" for line in answer_flags(run)]
    lines = [
        verdicts + (f" — decided at {run.decide}" if run.budget is not None else ""),
        *(["", *flagged] if flagged else []),
        "",
        f"| candidate | scope | gate | value{_at(gate_basis(run))} | limit | |",
        "|---|---|---|---|---|---|",
    ]
    for g in run.gates:
        mark = "pass" if g.passed else "**FAIL**"
        value = gate_number(g.gate, g.value) if g.unavailable is None else (
            markdown_text(g.unavailable))  # fmt: skip
        lines.append(
            f"| `{g.candidate}` | {g.scope} | {g.gate} | {value} | "
            f"{gate_number(g.gate, g.limit)} | {mark} |"
        )
    return lines


def _at(basis: str | None) -> str:
    return "" if basis is None else f" at {basis}"


def _changes(run: RunFile, name: str, comp: Comparison) -> list[str]:
    """A candidate's lost and gained queries, with pattern, slices, cause (and text)."""
    sig = comp.significance
    lines = ["", f"## `{name}` against `{run.manifest.settings.baseline}`", ""]
    if not sig.decisive:
        lines += [f"_{sig.reason}_", ""]
    for status, title in ((Status.LOST, "Lost"), (Status.GAINED, "Gained")):
        changes = comp.with_status(status)
        lines += [f"**{title} at {basis_name(run, 'k')} ({len(changes)})**", ""]
        for change in sorted(changes, key=lambda c: c.query):
            query = run.queries[change.query]
            cause = f" — {change.cause}" if change.cause else ""
            if status == Status.LOST and (scope := loss_scope(run, name, change.query)):
                cause += f" · {scope}"
            tags = ", ".join([query.boundary, *query.slices])
            text = f" “{query.text}”" if run.manifest.include_text else ""
            lines.append(f"- `{change.query}` ({tags}){cause}{text}")
        lines.append("")
    lines.append(f"Inspect one: `spanlab show {run.id} QUERY --candidate {name}`")
    return lines


def breakdown_tables(run: RunFile) -> list[str]:
    """Recall by slice, boundary pattern, document, document format and evidence length:
    baseline, then each candidate's change."""
    lines: list[str] = []
    for dim, title in BREAKDOWNS:
        if run.baseline.breakdowns.get(dim):
            counts = answerable_by(run, dim)
            lines += _breakdown(run.baseline, list(run.comparisons.items()), dim, title, counts)
    return lines


def _breakdown(
    base: CandidateRecord,
    comps: Sequence[tuple[str, Comparison]],
    dim: str,
    title: str,
    answerable: Mapping[str, int],
) -> list[str]:
    """One breakdown table; `answerable` counts the queries the recall averages (abstention
    queries are in the group but out of every recall denominator, §7)."""
    recall = shown(RECALL)
    heads = " | ".join(f"`{name}` Δ (lost)" for name, _ in comps)
    rule = "|---" * (3 + len(comps)) + "|"
    lines = ["", f"## Recall@k by {title}", "",
             f"| {title} | answerable (of queries) | baseline | {heads} |", rule]  # fmt: skip
    for key, group in base.breakdowns[dim].items():
        cells = []
        for _, comp in comps:
            cmp = comp.breakdowns.get(dim, {}).get(key)
            if cmp is None:
                cells.append("–")
                continue
            delta = recall.delta_text(cmp.deltas.get(RECALL))
            lost = cmp.counts.lost
            cells.append(f"{delta} (**{lost}**)" if lost else f"{delta} (0)")
        cells_text = " | ".join(cells)
        count = f"{answerable.get(key, 0)} (of {group.queries})"
        lines.append(
            f"| {key} | {count} | {recall.text(group.metrics.get(RECALL))} | {cells_text} |"
        )
    return lines
