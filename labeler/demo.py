"""`spanlab demo`: the bundled demo end to end, offline, in a folder of its own.

It makes a working copy of the bundled corpus, imports the bundled labels, evaluates the
bundled candidates with Chroma and MiniLM, and prints what a reviewer would look at first.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from evaluator.cli import evaluate_project
from evaluator.compare import Status
from evaluator.run import RunResult
from labeler.core import binding, config, labelset
from labeler.core.corpus import Corpus
from labeler.core.resources import bundled
from labeler.core.store import Store

COLUMNS = (
    ("evidence_recall@k", "recall@k", "{:.3f}"),
    ("hit@k", "hit@k", "{:.3f}"),
    ("oracle_recall", "oracle", "{:.3f}"),
    ("chunk_count", "chunks", "{:.0f}"),
)
"""What fits an 80-column terminal; report.md in the run folder has every metric."""


def prepare(directory: Path, console: Console) -> None:
    """Copy the bundled demo into `directory`, bind a store and import the labels once."""
    source = bundled("data/demo")
    directory.mkdir(parents=True, exist_ok=True)
    if not (directory / "corpus").exists():
        shutil.copytree(source / "corpus", directory / "corpus")
    for name in ("labels.json", "candidates.toml"):
        shutil.copyfile(source / name, directory / name)
    os.chdir(directory)
    proj = config.load(Path.cwd()).override(corpus=Path("corpus"))
    proj.db.parent.mkdir(parents=True, exist_ok=True)
    config.write(proj)
    corpus = Corpus.read(Path("corpus"))
    store = Store.open(proj.db)
    if store.corpus_hash is None:
        store.bind(corpus.doc_hashes)
    binding.sync(store, corpus)
    console.print(f"working copy  {Path.cwd()}")
    console.print(f"corpus        {len(corpus)} documents  {corpus.hash[:23]}…")
    if store.count("queries") == 0:
        queries = labelset.read(Path("labels.json"), corpus).queries
        labelset.import_queries(store, queries, corpus, annotator="demo")
    n = store.count("queries")
    console.print(f"labels        {n} queries, {store.count('spans')} evidence spans")
    store.close()


def summary_table(result: RunResult) -> Table:
    table = Table(
        title="Candidates against the baseline (*)", title_justify="left",
        box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 0, 0, 1),
    )  # fmt: skip
    table.add_column("candidate", no_wrap=True)
    for _, header, _ in COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    for header in ("+", "−", "Δ recall", "95% CI"):
        table.add_column(header, justify="right", no_wrap=True)
    for name, run in result.runs.items():
        metrics = run.metrics()
        cells = ["–" if metrics.get(k) is None else fmt.format(metrics[k]) for k, _, fmt in COLUMNS]
        comp = result.comparisons.get(name)
        if comp is None:
            table.add_row(f"{name} *", *cells, "", "", "", "")
            continue
        ci = comp.significance.recall_interval
        delta = comp.overall.deltas.get("evidence_recall@k") or 0.0
        interval = "" if ci is None else f"{ci.low:+.2f}..{ci.high:+.2f}"
        counts = comp.overall.counts
        table.add_row(
            name, *cells, f"[green]{counts.gained}", f"[red]{counts.lost}", f"{delta:+.3f}",
            interval,
        )  # fmt: skip
    return table


def print_changes(result: RunResult, console: Console) -> None:
    texts = {q.id: q.text for q in result.queries}
    for name, comp in result.comparisons.items():
        console.print(f"\n[bold]{name}[/] against {comp.baseline}")
        for status, colour in ((Status.LOST, "red"), (Status.GAINED, "green")):
            changes = sorted(comp.with_status(status), key=lambda c: c.query)
            console.print(f"  [{colour}]{status.value} ({len(changes)})[/]")
            for change in changes:
                cause = f" [dim]{change.cause:<11}[/]" if change.cause else ""
                line = f"    {change.query}{cause}  {texts[change.query]}"
                console.print(line, no_wrap=True, overflow="ellipsis")


def run_demo(directory: Path) -> RunResult:
    console = Console()
    prepare(directory, console)
    result, folder = evaluate_project(
        Path("candidates.toml"), labels_file=None, preset=None, corpus_dir=None, db=None,
        chroma_url=None, include_text=False, check_ann=False,
    )  # fmt: skip
    console.print()
    console.print(summary_table(result))
    print_changes(result, console)
    broken = [g for g in result.gates if not g.passed]
    verdict = "[green]PASS[/]" if not broken else f"[red]FAIL[/] ({len(broken)} broken)"
    console.print(f"\ngates  {verdict}")
    for g in broken:
        console.print(f"  {g.candidate}  {g.scope}  {g.gate} = {g.value}, limit {g.limit:g}")
    lost = next(
        (c for comp in result.comparisons.values() for c in comp.with_status(Status.LOST)), None
    )
    example = lost.query if lost else result.queries[0].id
    console.print(f"\nrun folder  {folder}  (report.md, run.json, junit.xml, frontier.svg)")
    console.print("\nNext:")
    console.print(f"  cd {Path.cwd()}")
    console.print(f"  spanlab show {result.id} {example}   # the boundary view of one query")
    console.print("  spanlab triage                       # gained and lost queries, in the app")
    console.print("  spanlab label                        # fix or add labels")
    return result
