"""`spanlab eval`, `gate`, `show` and `demo`: the evaluator's commands.

`eval --labels FILE` and `gate` need only the corpus folder and the frozen label set — no
store — which is what CI has. Exit codes: 0 pass, 1 a gate broke (`eval`: only a check of
the run itself — a candidate whose answers all failed, §23), 2 bad input, 3 spanlab itself
failed (so a crash never reads as a broken gate). The evaluator is imported inside
each command, so `spanlab label` does not load it (design §12: app ready ≤ 1 s).
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from evaluator.runs.place import RUNS_DIR

if TYPE_CHECKING:
    from evaluator.pipeline.project import Evaluated
    from evaluator.plan.model import Plan
    from evaluator.runs.model import RunFile
from labeler.cli._common import (
    ChromaOpt,
    CorpusOpt,
    DbOpt,
    RetrieverOpt,
    checked,
    fail,
    handles_errors,
    hidden_queries,
    member,
    private_files,
    project,
    read_corpus,
    say,
    sight,
)
from labeler.core.errors import ConfigError, SpanlabError
from labeler.core.files import sharing
from labeler.core.store import Store
from labeler.core.team.roles import Act
from labeler.core.team.visibility import BLIND_WHY

app = typer.Typer()
"""The evaluator's commands, at the top of the command line."""

CandidatesArg = Annotated[
    Path | None,
    typer.Argument(
        help="Candidates file (TOML); omit with --preset (eval: else the folder's candidates.toml)."
    ),
]
LabelsOpt = Annotated[
    Path | None, typer.Option("--labels", help="Frozen label set (eval default: the store's).")
]
PresetOpt = Annotated[
    str | None, typer.Option("--preset", help="Built-in candidates: chroma-report.")
]
TextOpt = Annotated[bool, typer.Option("--include-text", help="Allow query text in the run files.")]


def job_summary(run: RunFile) -> None:
    """In CI (`GITHUB_STEP_SUMMARY` set), append the run's report to the job summary."""
    from evaluator.runs.folder import append_job_summary

    if path := os.environ.get("GITHUB_STEP_SUMMARY"):
        append_job_summary(run, Path(path))


def _table_console() -> Console:
    """A terminal's own width; piped (a CI log), wide enough that no table column is cut
    (rich would take 80 columns and drop the lost counts)."""
    return Console() if sys.stdout.isatty() else Console(width=1000)


@app.command("demo", epilog="Example: spanlab demo --dir spanlab-demo")
@handles_errors
def demo(
    directory: Annotated[Path, typer.Option("--dir", help="Folder for the working copy.")] = Path(
        "spanlab-demo"
    ),
) -> None:
    """The bundled demo, end to end, offline: corpus, labels, Chroma + MiniLM evaluation."""
    from evaluator.metrics.compare import Status
    from evaluator.pipeline import demo as demo_copy
    from evaluator.plan.text import print_plan
    from evaluator.runs.summary import print_run

    console = _table_console()
    copy = demo_copy.prepare(directory)
    console.print(f"working copy  {copy.folder}")
    console.print(f"corpus        {copy.documents} documents  {copy.corpus_hash[:23]}…")
    console.print(f"labels        {copy.queries} queries, {copy.spans} evidence spans\n")
    done = demo_copy.evaluate_demo(planned=lambda found: print_plan(found, console))
    run = done.run
    print_run(run, done.folder, console, texts=done.texts)
    lost = next(
        (c for comp in run.comparisons.values() for c in comp.with_status(Status.LOST)), None
    )
    example = lost.query if lost else next(iter(run.queries))
    console.print("\nNext:")
    console.print(f"  cd {Path.cwd()}")
    console.print(f"  spanlab show {run.id} {example}   # the boundary view of one query")
    console.print("  spanlab triage                       # gained and lost queries, in the app")
    console.print("  spanlab label                        # fix or add labels")
    console.print("  spanlab eval                         # evaluate again (candidates.toml here)")


def cache_line(done: Evaluated) -> None:
    """How many texts were embedded and how many the cache gave, on stderr (stdout is data)."""
    line = done.cache_line()
    if line is not None:
        say(line, err=True)


def say_ceilings(found: Plan) -> None:
    """The plan's one line per candidate, before the eval embeds anything (§17)."""
    from evaluator.plan.text import ceiling_lines

    for line in ceiling_lines(found):
        say(line)


@app.command("eval", epilog="Example: spanlab eval candidates.toml --labels frozen.json")
@handles_errors
def eval_command(
    candidates_file: CandidatesArg = None,
    labels: LabelsOpt = None,
    chroma_url: ChromaOpt = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write run.json here.")
    ] = None,
    preset: PresetOpt = None,
    include_text: TextOpt = False,
    check_ann: Annotated[
        bool, typer.Option("--check-ann", help="Report Chroma vs exact top-k agreement.")
    ] = False,
    retriever: RetrieverOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
    latency: Annotated[
        bool,
        typer.Option(
            "--latency",
            help="Time warm query passes (latency p50/p95) though no latency gate asks.",
        ),
    ] = False,
) -> None:
    """Cut, index and query every candidate; write .spanlab/runs/<id>/. With no candidates
    file and no --preset, the project folder's candidates.toml (said first). Exit 1 when a
    candidate asked for answers ([generation]) got none at all."""
    proj = project(corpus, db)
    member(proj, None, Act.EVAL)
    from evaluator.pipeline.inputs import folder_candidates
    from evaluator.pipeline.project import evaluate_project

    if candidates_file is None and preset is None:
        candidates_file = folder_candidates(proj.root, Path.cwd())
        if candidates_file is not None:
            say(f"candidates {candidates_file} (none named: the project folder's own)")
    from evaluator.runs.model import write_run_file
    from evaluator.runs.summary import print_run

    done = evaluate_project(
        candidates_file, labels_file=labels, preset=preset, corpus_dir=corpus, db=db,
        chroma_url=chroma_url, include_text=include_text, check_ann=check_ann,
        retriever=retriever, planned=say_ceilings, latency=latency,
    )  # fmt: skip
    if json_out is not None:
        with sharing.private_files(done.private):
            write_run_file(done.run, json_out)
    if done.private:
        say(f"note: {done.folder} is yours alone (mode 2700): it holds versions that wait for "
            "a decision, which blind keeps from the group; decide them and run eval again "
            "to share a run", err=True)  # fmt: skip
    job_summary(done.run)
    show_query_text = include_text or (sys.stdout.isatty() and not os.environ.get("CI"))
    print_run(done.run, done.folder, _table_console(), texts=done.texts if show_query_text else {})
    cache_line(done)
    unmeasured(done.run)


def unmeasured(run: RunFile) -> None:
    """Exit 1 when a candidate's generation measured nothing (every prompt failed, §23): a
    run that asked for answers and got none is a failed check, whether or not gates judge it
    (a broken gate is `gate`'s exit code; this is the run's own)."""
    for g in run.unmeasured:
        say(f"FAIL  {g.scope}: {g.unavailable}", err=True)
    if run.unmeasured:
        raise typer.Exit(1)


@app.command("gate", epilog="Example: spanlab gate candidates.toml --labels frozen.json")
@handles_errors
def gate_command(
    candidates_file: CandidatesArg = None,
    labels: LabelsOpt = None,
    chroma_url: ChromaOpt = None,
    preset: PresetOpt = None,
    retriever: RetrieverOpt = None,
    corpus: CorpusOpt = None,
    candidate: Annotated[
        str | None, typer.Option(help="Judge only this candidate's gates (default: every one).")
    ] = None,
    against: Annotated[
        str | None,
        typer.Option(help="Also gate against a stored run (folder, run.json or id): main's."),
    ] = None,
) -> None:
    """Evaluate; exit 0 when every gate holds, 1 when one breaks, 2 on bad input (3 if
    spanlab itself fails, so a crash never reads as a broken gate). Without spanlab.toml the
    corpus is ./corpus."""
    from evaluator.pipeline.project import evaluate_project

    if labels is None:
        raise ConfigError("gate needs --labels with a frozen label set", key="--labels")
    project(corpus, None)  # what the group's spanlab.toml may not steer is said (§21)
    try:
        done = evaluate_project(
            candidates_file, labels_file=labels, preset=preset, corpus_dir=corpus, db=None,
            chroma_url=chroma_url, include_text=False, check_ann=False, retriever=retriever,
        )  # fmt: skip
    except SpanlabError:
        raise
    except Exception as exc:
        traceback.print_exc()
        fail(f"internal error, not a gate result: {exc!r}")
        raise typer.Exit(3) from None
    report_gate(done, candidate, against, candidates_file, preset)


def report_gate(
    done: Evaluated,
    candidate: str | None,
    against: str | None,
    cfile: Path | None,
    preset: str | None,
) -> None:
    """Print the verdict first, then the settings and every gate; exit 1 when one broke."""
    from evaluator.runs.gate_text import gate_basis, gate_line
    from evaluator.runs.report import ranked_skips, skipped_note
    from evaluator.runs.verdict_words import settings_line

    run = done.run
    job_summary(run)
    judged = run.others if candidate is None else [run.candidate(candidate).name]
    base = run.baseline.name  # judged too when its answers were checked (§23)
    listed = [base, *judged] if base in run.gated and base not in judged else judged
    basis = gate_basis(run)
    details = [f"{'pass' if g.passed else 'FAIL'}  {g.candidate}  {gate_line(g, basis)}"
               for g in run.gates if g.candidate in listed]  # fmt: skip
    broken = [f"{n} (baseline)" if n == base and candidate != base else n
              for n in listed if not run.passed_for(n)]  # fmt: skip
    if against is not None:
        more, against_broken = against_lines(run, against, cfile, preset, judged)
        details, broken = details + more, broken + against_broken
    say(verdict_line(broken, len(judged), against))
    say(settings_line(run))
    if run.manifest.skipped_queries:
        say(f"left out: {skipped_note(run)}")
    for line in ranked_skips(run):
        say(line)
    for line in details:
        say(line)
    for name in listed:
        fails = any(b == name or b.startswith(f"{name} (") for b in broken)
        say(f"{'FAIL' if fails else 'PASS'}  {name}")
    say(f"run folder: {done.folder}")
    cache_line(done)
    if run.generation is not None:  # counts and failure kinds only: nothing from a server
        say(run.generation.asking.line())
    if broken:
        say(f"gates broken by: {', '.join(broken)}", err=True)
        raise typer.Exit(1)


def verdict_line(broken: list[str], judged: int, against: str | None) -> str:
    """The whole verdict in one line, printed before the lines that explain it."""
    where = "the baseline" + ("" if against is None else " and the stored run")
    if broken:
        return f"FAIL  gates broken by {', '.join(broken)} (against {where})"
    return f"PASS  every gate holds for {judged} candidate(s) against {where}"


def against_lines(
    run: RunFile,
    against: str,
    candidates_file: Path | None,
    preset: str | None,
    judged: list[str],
) -> tuple[list[str], list[str]]:
    """The lines of the gates against the stored run, and the names whose gates broke there;
    a judged candidate the stored run does not hold is named, not silently passed."""
    from evaluator import candidates as cands
    from evaluator import presets
    from evaluator.pipeline.against import gate_against
    from evaluator.runs.diff import load_run_ref
    from evaluator.runs.gate_text import gate_line

    stored = load_run_ref(project(None).root / RUNS_DIR, against)
    cfile = cands.read(candidates_file) if candidates_file else presets.preset_file(preset or "")
    found, diffs = gate_against(run, stored, cfile.gates)
    records = [g for g in found if g.candidate in judged]
    if summary := os.environ.get("GITHUB_STEP_SUMMARY"):
        from evaluator.runs.diff_text import diff_markdown
        from evaluator.runs.folder import append_summary_text

        for d in (d for d in diffs if d.candidate_b in judged):
            append_summary_text(diff_markdown(d), Path(summary))
    at_k = f"k = {run.manifest.settings.k}"  # run against run compares at k (§16)
    lines = [f"{'pass' if g.passed else 'FAIL'}  {g.candidate} against {stored.id}  "
             f"{gate_line(g, at_k)}" for g in records]  # fmt: skip
    if unmatched := [n for n in judged if n not in stored.names]:
        lines.append(f"not gated against {stored.id}: {', '.join(unmatched)} "
                     "(no candidate of that name in the stored run)")  # fmt: skip
    broken = sorted({f"{g.candidate} (against {stored.id})" for g in records if not g.passed})
    lines.append(f"{'FAIL' if broken else 'PASS'}  against stored run {stored.id}")
    return lines, broken


@app.command("show", epilog="Example: spanlab show latest q-0007 --candidate tok128-ov0")
@handles_errors
def show_command(
    run: Annotated[str, typer.Argument(help="Run id, a run folder, or 'latest'.")],
    query: Annotated[str, typer.Argument(help="Query id.")],
    candidate: Annotated[
        str | None, typer.Option(help="Candidate to compare (default: the first).")
    ] = None,
    corpus: CorpusOpt = None,
) -> None:
    """A query's evidence with baseline and candidate cuts, and both top-k lists."""
    from evaluator.runs.show import load_run, show_view

    proj = project(corpus)
    found = load_run(proj.root / RUNS_DIR, run)
    docs = read_corpus(proj)
    texts, facts = None, {}
    if proj.db.exists():
        store = checked(Store.open_for_reading(proj.db))
        refused = sight(proj).refusal(store, query)
        if refused is not None:
            raise SpanlabError(refused)
        stored = store.queries()
        texts, facts = {q.id: q.text for q in stored}, {q.id: q.facts for q in stored}
    console = Console()
    width = console.width if console.is_terminal else None  # piped: whole lines, for grep
    for line in show_view(found, query, candidate, docs, texts, width=width,
                          facts=facts.get(query, ())):  # fmt: skip
        # On a terminal rich wraps headings and lists at spaces; the text and its rulers
        # come wrapped to fit already. Piped, nothing is wrapped.
        console.print(line, soft_wrap=width is None, highlight=False)


@app.command(
    "trec",
    epilog="Example: spanlab trec latest trec/  then  ranx: Qrels.from_file('trec/c.qrels')",
)
@handles_errors
def trec_command(
    run: Annotated[str, typer.Argument(help="Run id, a run folder, its run.json, or 'latest'.")],
    out: Annotated[Path, typer.Argument(help="Folder for the run and qrels files.")],
    corpus: CorpusOpt = None,
) -> None:
    """Write a run as TREC files of what each candidate SENDS, for ranx, ir_measures or
    pytrec_eval: NAME.run (per rank to depth, the unit sent for that rank's chunk: the chunk,
    or its parent or merged window; a repeat is written ID@RANK, so a position is its rank)
    and NAME.qrels; NAME.retrieved.run when what is retrieved differs; NAME.spans.run and
    spans.qrels (each evidence group at its true first-match rank, fillers between: recall@k
    over them is the run's at k, MRR too unless two groups share a first match at k); with a
    budget, NAME.budget.run and NAME.budget.spans.run, each list ending where the budget's
    fill rule ends the context (measure them with no cutoff). README.txt in OUT says the
    same."""
    from evaluator.runs.trec import export_trec, trec_run

    proj = project(corpus)
    found = trec_run(proj.root / RUNS_DIR, run)
    hidden = hidden_queries(proj) & set(found.queries)
    private = private_files(proj, set(found.queries) - hidden, out)
    with sharing.private_files(private):
        written = export_trec(found, read_corpus(proj), out, hidden)
    for path in written:
        say(str(path))
    if hidden:
        say(f"warning: {len(hidden)} quer(y/ies) left out, their versions wait for a decision: "
            f"{BLIND_WHY}", err=True)  # fmt: skip
