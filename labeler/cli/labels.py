"""`spanlab labels import | export | stats`: labels in and out of the store, and counts.

Import validates a whole file before it writes anything (one transaction); export refuses
while any span waits for review. The formats themselves live in `labeler.core.formats`.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from labeler.cli._common import (
    AnnotatorOpt,
    CorpusOpt,
    DbOpt,
    JsonFlag,
    annotator_name,
    handles_errors,
    open_project,
)
from labeler.core import formats as label_formats
from labeler.core import imports, labelset
from labeler.core.stats import label_stats

group = typer.Typer(
    help="Import, export and count labels.",
    epilog="Example: spanlab labels export frozen.json",
    no_args_is_help=True,
)
"""`spanlab labels …`."""


FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format", "-f",
        help=f"One of: {', '.join(label_formats.FORMATS)} (default: guessed from the file).",
    ),
]  # fmt: skip


@group.command("import", epilog="Example: spanlab labels import labels.json")
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
    done = imports.import_file(
        store, docs, status, file, fmt,
        annotator=annotator_name(annotator), replace=replace, encoding=proj.encoding,
    )  # fmt: skip
    if done.added:
        typer.echo(
            f"added {len(done.added)} document(s) from {file} to the corpus folder {docs.root}",
            err=True,
        )
    for w in done.warnings:
        typer.echo(f"warning: {w}", err=True)
    same = done.total - done.imported
    unchanged = f" ({same} already in the store with the same labels)" if same else ""
    typer.echo(f"imported {done.imported} of {done.total} queries from {file}{unchanged}")


@group.command("export", epilog="Example: spanlab labels export frozen.json")
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


@group.command("stats", epilog="Example: spanlab labels stats --json")
@handles_errors
def labels_stats(corpus: CorpusOpt = None, db: DbOpt = None, as_json: JsonFlag = False) -> None:
    """Counts by status, pattern, slice, document and annotator."""
    _, _, store, _ = open_project(corpus, db, reading=True)
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
