"""The `spanlab` command line: each command parses, makes one library call, renders (§10).

Domain errors become one message on stderr and exit code 2; stdout carries data only.
The evaluator's commands (`eval`, `gate`, `show`) and the app's (`label`, `review`,
`triage`) are mounted from their own modules so this file stays a thin switchboard.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from evaluator.cli import register as register_evaluator
from evaluator.cliutil import annotator_name, fail, handles_errors
from labeler.cli_review import register as register_review
from labeler.core import binding, config, labelset
from labeler.core import formats as label_formats
from labeler.core.corpus import Corpus
from labeler.core.errors import SpanlabError, StoreError
from labeler.core.stats import label_stats
from labeler.core.store import Store

app = typer.Typer(
    name="spanlab",
    help="Tell, with evidence, whether a chunking change made retrieval better or worse.",
    epilog="Example: spanlab init data/corpus && spanlab corpus status",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
corpus_app = typer.Typer(
    help="The corpus folder and its binding.",
    epilog="Example: spanlab corpus status --json",
    no_args_is_help=True,
)
labels_app = typer.Typer(
    help="Import, export and count labels.",
    epilog="Example: spanlab labels export frozen.json",
    no_args_is_help=True,
)


def show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"spanlab {version('spanlab')}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=show_version, is_eager=True, help="Print the version."),
    ] = None,
) -> None:
    """Tell, with evidence, whether a chunking change made retrieval better or worse."""


app.add_typer(corpus_app, name="corpus")
app.add_typer(labels_app, name="labels")

DbOpt = Annotated[Path | None, typer.Option("--db", help="Label store (SQLite) path.")]
CorpusOpt = Annotated[Path | None, typer.Option("--corpus", help="Corpus folder.")]
AnnotatorOpt = Annotated[
    str | None, typer.Option("--annotator", help="Your name on edits (default: login name).")
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def project(corpus: Path | None = None, db: Path | None = None) -> config.Project:
    return config.load(Path.cwd()).override(corpus=corpus, db=db)


def open_project(
    corpus: Path | None, db: Path | None
) -> tuple[config.Project, Corpus, Store, binding.CorpusStatus]:
    """Read the corpus as it is now, open the store and compare the two (§8)."""
    proj = project(corpus, db)
    docs = Corpus.read(proj.require_corpus(), encoding=proj.encoding)
    store = Store.open(proj.db, create=False)
    status = binding.sync(store, docs)
    return proj, docs, store, status


@app.command(epilog="Example: spanlab init data/corpus --db .spanlab/labels.db")
@handles_errors
def init(
    corpus_dir: Annotated[Path, typer.Argument(help="The corpus folder (.md and .txt files).")],
    db: DbOpt = None,
    encoding: Annotated[str, typer.Option(help="Codec of the corpus files.")] = "utf-8",
) -> None:
    """Write spanlab.toml, read the corpus and bind the label store to its hash."""
    started = time.perf_counter()
    docs = Corpus.read(corpus_dir, encoding=encoding)
    proj = config.load(Path.cwd()).override(corpus=corpus_dir, db=db, encoding=encoding)
    proj.db.parent.mkdir(parents=True, exist_ok=True)
    store = Store.open(proj.db)
    status = binding.open_or_bind(store, docs)
    config.write(proj)
    for skipped in docs.skipped:
        typer.echo(f"warning: skipped {skipped} (not .md or .txt)", err=True)
    for doc_id in utf8_lookalikes(corpus_dir, docs, encoding):
        typer.echo(
            f"warning: {doc_id} is valid UTF-8 with non-ASCII text, but is read as {encoding}: "
            "its text may be garbled",
            err=True,
        )
    chars = sum(len(d.text) for d in docs)
    typer.echo(f"corpus   {corpus_dir}  {len(docs)} documents, {chars:,} characters")
    typer.echo(f"hash     {docs.hash}")
    typer.echo(f"store    {proj.db}  ({store.count('queries')} queries)")
    if status.waiting:
        typer.echo(f"review   {status.waiting} span(s) wait for review: run `spanlab review`")
    typer.echo(f"time     {time.perf_counter() - started:.2f} s")


def utf8_lookalikes(root: Path, docs: Corpus, encoding: str) -> list[str]:
    """Documents that a non-UTF-8 codec may have garbled: they decode as UTF-8 too."""
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8"):
        return []
    found = []
    for doc in docs:
        raw = (root / doc.id).read_bytes()
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if not raw.isascii():
            found.append(doc.id)
    return found


@corpus_app.command("status", epilog="Example: spanlab corpus status --json")
@handles_errors
def corpus_status(corpus: CorpusOpt = None, db: DbOpt = None, as_json: JsonFlag = False) -> None:
    """Documents, hash, and what changed since the store was bound."""
    _, docs, _store, status = open_project(corpus, db)
    report: dict[str, Any] = {
        "documents": len(docs),
        "corpus_hash": docs.hash,
        "bound_hash": status.bound_hash,
        "changed": list(status.change.changed),
        "added": list(status.change.added),
        "removed": list(status.change.removed),
        "spans": {state.value: n for state, n in sorted(status.counts.items())},
        "waiting_for_review": status.waiting,
    }
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    typer.echo(f"documents  {len(docs)}")
    typer.echo(f"corpus     {docs.hash}")
    bound = "same" if status.bound_hash == docs.hash else status.bound_hash
    typer.echo(f"bound to   {bound}")
    for key in ("changed", "added", "removed"):
        for doc in report[key]:
            typer.echo(f"  {key:<8} {doc}")
    spans = ", ".join(f"{n} {state}" for state, n in report["spans"].items())
    typer.echo(f"spans      {spans or 'none'}")
    if status.waiting:
        typer.echo(f"{status.waiting} span(s) wait for review: run `spanlab review`")


FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format", "-f",
        help=f"One of: {', '.join(label_formats.FORMATS)} (default: guessed from the file).",
    ),
]  # fmt: skip


@labels_app.command("import", epilog="Example: spanlab labels import labels.json")
@handles_errors
def labels_import(
    file: Annotated[Path, typer.Argument(help="The file to import.")],
    fmt: FormatOpt = None,
    replace: Annotated[bool, typer.Option(help="Overwrite queries with the same id.")] = False,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
    annotator: AnnotatorOpt = None,
) -> None:
    """Validate a label file completely, then write it in one transaction."""
    proj, docs, store, status = open_project(corpus, db)
    if fmt is None:
        fmt = label_formats.guess(file)
        if fmt != "spanlab":
            typer.echo(f"reading {file} as {fmt} (pass --format to choose)", err=True)
    if fmt == "spanlab":
        queries = labelset.read(file, docs).queries
        warnings: tuple[str, ...] = ()
    else:
        imported = label_formats.get(fmt).read(file, docs, existing=store.queries())
        if imported.documents:
            # Refuse before the new documents are written, not after.
            labelset.refuse_while_waiting(status)
            labelset.refuse_conflicts(store, imported.queries, replace_existing=replace)
            docs = add_documents(proj.require_corpus(), docs, imported.documents, proj.encoding)
            binding.sync(store, docs)
            typer.echo(
                f"added {len(imported.documents)} document(s) from {file} to the corpus folder "
                f"{proj.require_corpus()}",
                err=True,
            )
        queries, warnings = imported.queries, imported.warnings
    n = labelset.import_queries(
        store, queries, docs, annotator=annotator_name(annotator), replace_existing=replace
    )
    for w in warnings:
        typer.echo(f"warning: {w}", err=True)
    same = len(queries) - n
    unchanged = f" ({same} already in the store with the same labels)" if same else ""
    typer.echo(f"imported {n} of {len(queries)} queries from {file}{unchanged}")


def add_documents(root: Path, docs: Corpus, new: dict[str, str], encoding: str) -> Corpus:
    """Write documents a format brought into the corpus folder; refuse to overwrite."""
    for doc_id, text in new.items():
        if doc_id in docs and docs.text(doc_id) != text:
            raise SpanlabError("document exists with different text", file=str(root / doc_id))
    for doc_id, text in new.items():
        path = root / doc_id
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(text, encoding="utf-8")
    return Corpus.read(root, encoding=encoding)


@labels_app.command("export", epilog="Example: spanlab labels export frozen.json")
@handles_errors
def labels_export(
    out: Annotated[Path, typer.Argument(help="Where to write.")],
    fmt: FormatOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
) -> None:
    """Export the labels; refuses while any span is stale or orphaned."""
    _, docs, store, _ = open_project(corpus, db)
    data = labelset.export(store, docs)
    drafts = [q["id"] for q in data["queries"] if not q["abstain"] and not q["evidence"]]
    if drafts:
        typer.echo(
            f"warning: {len(drafts)} quer(y/ies) have no evidence and are not marked abstain "
            f"({', '.join(drafts[:5])}{' …' if len(drafts) > 5 else ''}); eval leaves them out",
            err=True,
        )
    if fmt is None or fmt == "spanlab":
        labelset.write_json(data, out)
    else:
        label_formats.get(fmt).write(store.queries(), docs, out)
    typer.echo(f"wrote {len(data['queries'])} queries to {out}  ({data['label_set_hash']})")


@labels_app.command("stats", epilog="Example: spanlab labels stats --json")
@handles_errors
def labels_stats(corpus: CorpusOpt = None, db: DbOpt = None, as_json: JsonFlag = False) -> None:
    """Counts by status, pattern, slice, document and annotator."""
    _, _, store, _ = open_project(corpus, db)
    stats = label_stats(store.query_rows(), store.doc_span_counts())
    if as_json:
        typer.echo(json.dumps(asdict(stats), indent=2))
        return
    typer.echo(render_stats(stats))


def render_stats(stats: Any) -> str:
    lines = [
        f"queries {stats.queries}  spans {stats.spans}  abstain {stats.abstain}  "
        f"multi-span {stats.multi_span}"
    ]
    for title, counts in (
        ("status", stats.by_status),
        ("pattern", stats.by_boundary),
        ("slice", stats.by_slice),
        ("document", stats.by_document),
        ("annotator", stats.by_annotator),
    ):
        lines.append(f"\n{title}")
        width = max((len(k) for k in counts), default=0)
        lines.extend(f"  {k:<{width}}  {v:>5}" for k, v in counts.items())
    return "\n".join(lines)


@app.command(epilog="Example: spanlab demo --dir spanlab-demo")
@handles_errors
def demo(
    directory: Annotated[Path, typer.Option("--dir", help="Folder for the working copy.")] = Path(
        "spanlab-demo"
    ),
) -> None:
    """The bundled demo, end to end, offline: corpus, labels, Chroma + MiniLM evaluation."""
    from labeler.demo import run_demo

    run_demo(directory)


@app.command(epilog="Example: spanlab label --annotator alice --theme spanlab-light")
@handles_errors
def label(
    annotator: AnnotatorOpt = None,
    theme: Annotated[str | None, typer.Option(help="A theme from themes/ by name.")] = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
) -> None:
    """The labelling app: queries, evidence spans, patterns, slices, abstention."""
    _, docs, store, status = open_project(corpus, db)
    if status.waiting:
        raise StoreError(
            f"{status.waiting} span(s) wait for review after the corpus changed",
            hint="run `spanlab review` first, so no label is shown at a wrong place",
        )
    from labeler.tui.launch import run_label_app

    run_label_app(store, docs, annotator=annotator_name(annotator), theme=theme)


@app.command(epilog="Example: spanlab triage latest --theme spanlab-high-contrast")
@handles_errors
def triage(
    run: Annotated[str | None, typer.Argument(help="Run id or prefix (default: latest).")] = None,
    theme: Annotated[str | None, typer.Option(help="A theme from themes/ by name.")] = None,
    annotator: AnnotatorOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
) -> None:
    """Gained and lost queries of a run, with both candidates' cuts over the evidence."""
    proj = project(corpus, db)
    docs = Corpus.read(proj.require_corpus(), encoding=proj.encoding)
    from labeler.tui.triage.launch import label_opener, run_triage_app

    opener, texts = None, None
    if proj.db.exists():
        store = Store.open(proj.db, create=False)
        if not binding.sync(store, docs).waiting:
            opener = label_opener(store, docs, annotator=annotator_name(annotator))
        texts = {q.id: q.text for q in store.queries()}
    run_triage_app(
        proj.root / ".spanlab" / "runs", docs, run_id=run, theme=theme, open_label=opener,
        texts=texts,
    )  # fmt: skip


register_evaluator(app)
register_review(app)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        fail("interrupted")
        sys.exit(130)
