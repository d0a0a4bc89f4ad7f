"""`spanlab demo`: the bundled demo end to end, offline, in a folder of its own.

It makes a working copy of the bundled corpus, imports the bundled labels, evaluates the
bundled candidates with Chroma and MiniLM, and prints what a reviewer would look at first.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from rich.console import Console

from evaluator.cli import evaluate_project
from evaluator.compare import Status
from evaluator.run import RunResult
from evaluator.summary import print_run
from labeler.core import binding, config, labelset
from labeler.core.corpus import Corpus
from labeler.core.resources import bundled
from labeler.core.store import Store


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
    binding.open_or_bind(store, corpus)
    console.print(f"working copy  {Path.cwd()}")
    console.print(f"corpus        {len(corpus)} documents  {corpus.hash[:23]}…")
    if store.count("queries") == 0:
        queries = labelset.read(Path("labels.json"), corpus).queries
        labelset.import_queries(store, queries, corpus, annotator="demo")
    n = store.count("queries")
    console.print(f"labels        {n} queries, {store.count('spans')} evidence spans")
    store.close()


def run_demo(directory: Path) -> RunResult:
    console = Console()
    prepare(directory, console)
    result, folder = evaluate_project(
        Path("candidates.toml"), labels_file=None, preset=None, corpus_dir=None, db=None,
        chroma_url=None, include_text=False, check_ann=False,
    )  # fmt: skip
    print_run(result, folder, console, show_text=True)
    lost = next(
        (c for comp in result.comparisons.values() for c in comp.with_status(Status.LOST)), None
    )
    example = lost.query if lost else result.queries[0].id
    console.print("\nNext:")
    console.print(f"  cd {Path.cwd()}")
    console.print(f"  spanlab show {result.id} {example}   # the boundary view of one query")
    console.print("  spanlab triage                       # gained and lost queries, in the app")
    console.print("  spanlab label                        # fix or add labels")
    return result
