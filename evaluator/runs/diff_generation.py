"""Run against run for answers (§16, §23): one candidate's answers in run A against one's in
run B, query by query on the queries both runs asked, with the checks' own comparison
(`generation.compare`: gained, lost, paired bootstrap, McNemar) and the generator's settings
side by side — a model, template or decoding change is said before any figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from evaluator.generation.compare import AnswerComparison, compare_answers, no_answer
from evaluator.generation.run_file import CHECKS, AnswerRecord, read_answers
from evaluator.generation.summary import Asking
from evaluator.runs.generation_text import (
    LABELS,
    candidate_flag,
    check_lines,
    effect_text,
    value_text,
)
from evaluator.runs.model import RunFile
from labeler.core.display import markdown_text, shown


def with_answers(run: RunFile, folder: Path) -> RunFile:
    """`run` with its generation.jsonl read (checked against run.json's digest); as it is
    when the run asked nothing or the file is not beside it (a run.json copied alone)."""
    if run.generation is None or not (folder / "generation.jsonl").exists():
        return run
    return replace(run, answers=read_answers(folder, run.generation.answers_sha256))


def _of(run: RunFile, name: str, shared: Sequence[str]) -> list[AnswerRecord]:
    keep = set(shared)
    return [r for r in run.answers if r.candidate == name and r.query in keep]


def answers_diff(
    a: RunFile, b: RunFile, ca: str, cb: str, shared: Sequence[str],
    recall_delta: Mapping[str, float | None], recall: float | None = None,
) -> tuple[AnswerComparison | None, str | None]:  # fmt: skip
    """A's answers as the baseline, B's as the candidate; or why there is no comparison."""
    if a.generation is None or b.generation is None:
        return None, None if a.generation is b.generation else "only one run asked for answers"
    if not a.answers or not b.answers:
        return None, "generation.jsonl is not beside both runs"
    for side, run, name in (("A", a, ca), ("B", b, cb)):  # nothing measured: said, not paired
        if why := no_answer(name, [r for r in run.answers if r.candidate == name]):
            return None, f"in run {side}, {why}"
    s = a.manifest.settings
    comp = compare_answers(_of(a, ca, shared), _of(b, cb, shared), cb, recall_delta,
                           resamples=s.resamples, seed=s.seed, recall=recall)  # fmt: skip
    return comp, None


def asking_changes(a: Asking, b: Asking) -> list[tuple[str, str, str]]:
    """(what, A's, B's) for every generator setting that differs."""
    keys = ("model", "url", "template_sha256", "decoding", "abstention", "send")
    return [(k, getattr(a, k), getattr(b, k)) for k in keys if getattr(a, k) != getattr(b, k)]


def answer_lines(
    a: RunFile, b: RunFile, comp: AnswerComparison | None, why: str | None
) -> list[str]:
    """The answers' part of `diff`'s terminal text (plain; names through the display rule)."""
    if comp is None or a.generation is None or b.generation is None:
        return [] if why is None else ["", f"answers: not compared ({why})"]
    lines = ["", "answers (generation at budget), A → B:"]
    changed = asking_changes(a.generation.asking, b.generation.asking)
    same = ["  generator: the same model, template and decoding"]
    lines += [f"  generator {k}: {shown(x, lines=False)} → {shown(y, lines=False)}"
              for k, x, y in changed] or same  # fmt: skip
    width = max(len(LABELS[c]) for c in CHECKS)
    lines.append(f"  {'check':<{width}} {'A':>6} {'B':>6} {'Δ':>6}")
    for name in CHECKS:
        c = comp.checks[name]
        delta = "–" if c.delta is None else f"{c.delta:+.2f}"
        lines.append(f"  {LABELS[name]:<{width}} {value_text(c.baseline):>6} "
                     f"{value_text(c.candidate):>6} {delta:>6}")  # fmt: skip
    lines += [f"  {line}" for line in check_lines(comp)] or ["  no check moved on any query"]
    lines += [f"  {effect_text(e)}" for e in comp.effects]
    if comp.worse_at_higher_recall:
        lines.append(f"  flag  {candidate_flag('B', comp)}")
    return lines


def answer_markdown(a: RunFile, b: RunFile, comp: AnswerComparison | None,
                    why: str | None) -> list[str]:  # fmt: skip
    """The same as markdown, every string escaped: a heading line, then one item a line."""
    lines = [line for line in answer_lines(a, b, comp, why) if line]
    if not lines:
        return []
    return ["", f"**{markdown_text(lines[0])}**", "",
            *(f"- {markdown_text(line.strip())}" for line in lines[1:])]  # fmt: skip
