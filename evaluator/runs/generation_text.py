"""The answers as people read them (§23): one table of the checks per candidate, each
check's gained and lost queries, and the effect only answers show — recall up while
completeness falls (with the duplicate-context cause) — for the terminal and report.md.

Both renderers read the RunFile's generation section alone; every check keeps its own
column (never one blended score), and names pass the display rule.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from evaluator.generation.compare import RECALL_UP, AnswerComparison, Effect
from evaluator.generation.run_file import CHECKS
from evaluator.generation.summary import GenerationSummary
from evaluator.runs.model import RunFile
from labeler.core.display import markdown_text, shown

LABELS = {
    "citation_precision": "cite P", "citation_recall": "cite R", "unsupported": "unsupp.",
    "completeness": "complete", "abstention": "abstain", "repeated_sentences": "repeats",
}  # fmt: skip
"""Each check's column head (run_file.CHECKS order); shares 0–1, the last two per answer."""
LEGEND = ("cite P/R: citation precision and recall · unsupp.: unsupported items per answer · "
          "complete: labelled facts stated · abstain: abstains exactly when the context lacks "
          "the evidence · repeats: repeated sentences per answer")  # fmt: skip
SHOWN_AT_MOST = 12
"""Query ids listed per check and direction before `… and N more`."""


def value_text(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def ids_text(ids: tuple[str, ...]) -> str:
    head = ", ".join(ids[:SHOWN_AT_MOST])
    more = len(ids) - SHOWN_AT_MOST
    return head + (f" … and {more} more" if more > 0 else "")


def rows(s: GenerationSummary) -> list[list[str]]:
    """Per candidate: name, each check's mean, then answered/sent and failed."""
    return [
        [c.name, *(value_text(c.values.get(k)) for k in CHECKS),
         f"{c.answered}/{c.sent}", str(c.failed)]
        for c in s.candidates
    ]  # fmt: skip


def effect_text(e: Effect) -> str:
    """`q-0001 recall +1.00, completeness −0.50 (duplicate context: overlapping sources)`."""
    head = "recall ↑ completeness ↓" if e.kind == RECALL_UP else "completeness ↑ at equal recall"
    cause = (
        " (duplicate context: overlapping sources)" if e.duplicate and e.kind == RECALL_UP else ""
    )
    return (f"{e.query} {head}: recall {e.recall_delta:+.2f}, completeness "
            f"{e.completeness_delta:+.2f}{cause}")  # fmt: skip


def check_lines(comp: AnswerComparison) -> list[str]:
    """`completeness  +1 −2  lost: q-0003, q-0007` per check that moved, with its statistics."""
    out = []
    for name in CHECKS:
        c = comp.checks[name]
        if not (c.gained or c.lost):
            continue
        ci = "" if c.interval is None else f"  Δ {c.interval.mean_difference:+.2f} " \
            f"[{c.interval.low:+.2f}, {c.interval.high:+.2f}]"  # fmt: skip
        p = "" if c.mcnemar_p is None else f"  p = {c.mcnemar_p:.3f}"
        line = f"{name}  +{len(c.gained)} −{len(c.lost)}{ci}{p}"
        if c.lost:
            line += f"  lost: {ids_text(c.lost)}"
        if c.gained:
            line += f"  gained: {ids_text(c.gained)}"
        out.append(line)
    return out


def answers_table(s: GenerationSummary) -> Table:
    table = Table(title=f"Answers at budget — {s.asking.model}, checks never blended",
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  padding=(0, 0, 0, 1), caption=LEGEND, caption_justify="left")  # fmt: skip
    table.add_column("candidate", no_wrap=True)
    for name in CHECKS:
        table.add_column(LABELS[name], justify="right", no_wrap=True)
    table.add_column("answered", justify="right", no_wrap=True)
    table.add_column("failed", justify="right", no_wrap=True)
    for row in rows(s):
        table.add_row(escape(shown(row[0], lines=False)), *row[1:])
    return table


def print_answers(run: RunFile, console: Console) -> None:
    """The answers' table, what asking did, and per candidate what moved against the
    baseline: each check's gained and lost queries, then the effects."""
    s = run.generation
    if s is None:
        return
    console.print()
    console.print(answers_table(s))
    console.print(escape(shown(s.asking.line(), lines=False)))
    for name, comp in s.comparisons.items():
        console.print(f"\n[bold]{escape(shown(name, lines=False))}[/] answers against the baseline")
        if comp.worse_at_higher_recall:
            flag = escape(shown(candidate_flag(name, comp), lines=False))
            console.print(f"  [yellow]flag[/]  {flag}")
        for line in check_lines(comp) or ["no check moved on any query"]:
            console.print(f"  {escape(shown(line, lines=False))}")
        for e in comp.effects:
            colour = "yellow" if e.kind == RECALL_UP else "green"
            console.print(f"  [{colour}]{escape(shown(effect_text(e), lines=False))}[/]")


def answers_md(run: RunFile) -> list[str]:
    """report.md's `## Answers` section; empty without generation."""
    s = run.generation
    if s is None:
        return []
    a = s.asking
    lines = ["", "## Answers (generation at budget)", "",
             f"Model `{markdown_text(a.model)}` · {markdown_text(a.decoding)} · template "
             f"`{a.template_sha256}` · send `{a.send}` · {markdown_text(a.line())}", "",
             "| candidate | " + " | ".join(LABELS[k] for k in CHECKS) + " | answered | failed |",
             "|---|" + "---:|" * (len(CHECKS) + 2)]  # fmt: skip
    lines += ["| " + " | ".join([markdown_text(r[0]), *r[1:]]) + " |" for r in rows(s)]
    lines += ["", f"_{LEGEND}._"]
    lines += ["", *(f"- **flag** {markdown_text(f)}" for f in answer_flags(run))]
    for name, comp in s.comparisons.items():
        lines += ["", f"### Answers of {markdown_text(name)} against the baseline", ""]
        lines += [f"- {markdown_text(x)}" for x in check_lines(comp) or ["no check moved"]]
        lines += [f"- **{markdown_text(effect_text(e))}**" for e in comp.effects]
    return lines


def answer_flags(run: RunFile) -> list[str]:
    """Per candidate whose recall rose on queries whose completeness fell: one line for the
    verdict (`c: recall ↑ completeness ↓ on 3 queries, 2 with duplicate context`)."""
    s = run.generation
    if s is None:
        return []
    out = []
    for name, comp in s.comparisons.items():
        if comp.worse_at_higher_recall:
            out.append(candidate_flag(name, comp))
        if found := comp.recall_up_completeness_down:
            dup = sum(e.duplicate for e in found)
            cause = f", {dup} with duplicate context (overlapping sources)" if dup else ""
            out.append(f"{name}: recall ↑ completeness ↓ on {len(found)} "
                       f"quer{'y' if len(found) == 1 else 'ies'}{cause}")  # fmt: skip
    return out


def candidate_flag(name: str, comp: AnswerComparison) -> str:
    """`c: recall at budget +0.022 while completeness -0.010 — duplicate context (0.81
    overlapping source pairs per prompt, baseline 0.22)`."""
    complete = comp.checks["completeness"].delta or 0.0
    base, mine = comp.overlapping
    cause = (f" — duplicate context ({mine:.2f} overlapping source pairs per prompt, "
             f"baseline {base:.2f})" if comp.duplicate_context else "")  # fmt: skip
    return (f"{name}: recall ↑ completeness ↓ — recall at budget {comp.recall_delta or 0:+.3f} "
            f"while completeness {complete:+.3f}{cause}")  # fmt: skip


def answer_cases(run: RunFile, name: str) -> list[tuple[str, str]]:
    """(case name, output) per check of candidate `name`'s answers, for junit.xml: passing
    cases (the `[gates.generation]` gates carry the failures), their output the check's
    means, gained and lost queries, and the flag when recall rose as answers got worse."""
    comp = None if run.generation is None else run.generation.comparisons.get(name)
    if comp is None:
        return []
    out = []
    for check in CHECKS:
        c = comp.checks[check]
        moved = next((line for line in check_lines(comp) if line.startswith(f"{check} ")), "")
        said = f"{check}: baseline {value_text(c.baseline)}, {name} {value_text(c.candidate)}"
        out.append((check, said + (f"; {moved}" if moved else "")))
    if comp.worse_at_higher_recall:
        out.append(("recall-up-completeness-down", candidate_flag(name, comp)))
    return out
