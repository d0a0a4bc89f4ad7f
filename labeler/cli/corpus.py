"""`spanlab init` and `spanlab corpus status`: the corpus folder and the store's binding.

Each command parses, makes one library call (`setup.init_project`, `binding.sync`) and
renders; warnings go to stderr so stdout stays data.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from labeler.cli._common import CorpusOpt, DbOpt, JsonFlag, handles_errors, open_project, say
from labeler.core.corpus.files import FileRule, skipped_summary
from labeler.core.corpus.folder import Corpus
from labeler.core.project import group as shared_project
from labeler.core.project.setup import init_project

app = typer.Typer()
"""`init`, at the top of the command line."""
group = typer.Typer(
    help="The corpus folder and its binding.",
    epilog="Example: spanlab corpus status --json",
    no_args_is_help=True,
)
"""`spanlab corpus …`."""


FollowOpt = Annotated[
    bool,
    typer.Option(
        "--follow-symlinks",
        help="Read what symlinks point to, even outside the folder (kept in spanlab.toml).",
    ),
]
GroupOpt = Annotated[
    str | None, typer.Option(help="Share the project with this Unix group (kept in spanlab.toml).")
]


@app.command(epilog="Example: spanlab init data/corpus --db .spanlab/labels.db")
@handles_errors
def init(
    corpus_dir: Annotated[
        Path, typer.Argument(help="The corpus folder (.md, .txt, .rst, … or `include` globs).")
    ],
    db: DbOpt = None,
    encoding: Annotated[str, typer.Option(help="Codec of the corpus files.")] = "utf-8",
    follow_symlinks: FollowOpt = False,
    group: GroupOpt = None,
) -> None:
    """Write spanlab.toml, read the corpus and bind the label store to its hash."""
    started = time.perf_counter()
    done = init_project(Path.cwd(), corpus_dir, db=db, encoding=encoding,
                        follow_symlinks=follow_symlinks, share_with=group)  # fmt: skip
    docs = done.corpus
    warn_passed_over(docs, done.project.include)
    for doc_id in done.lookalikes:
        say(f"warning: {doc_id} is valid UTF-8 with non-ASCII text, but is read as {encoding}: "
            "its text may be garbled", err=True)  # fmt: skip
    chars = sum(len(d.text) for d in docs)
    say(f"corpus   {corpus_dir}  {len(docs)} documents, {chars:,} characters")
    say(f"hash     {docs.hash}")
    say(f"store    {done.project.db}  ({done.store.count('queries')} queries)")
    if done.status.waiting:
        say(f"review   {done.status.waiting} span(s) wait for review: run `spanlab review`")
    say(f"time     {time.perf_counter() - started:.2f} s")


def warn_passed_over(docs: Corpus, rule: FileRule) -> None:
    """One line for the files that are not documents; each entry passed over, and why."""
    if docs.skipped:
        say(f"warning: {skipped_summary(docs.skipped)}", err=True)
    for glob in rule.unmatched(docs.documents):  # ids: no text is read for this
        say(f"warning: include glob {glob!r} matches no document", err=True)
    for entry in docs.passed_over:
        say(f"warning: skipped {entry}", err=True)


@group.command("status", epilog="Example: spanlab corpus status --json")
@handles_errors
def corpus_status(corpus: CorpusOpt = None, db: DbOpt = None, as_json: JsonFlag = False) -> None:
    """Documents, hash, and what changed since the store was bound."""
    proj, docs, store, status = open_project(corpus, db, reading=True)
    outside = store.audit_quick()
    who = shared_project.writers(proj)
    warn_passed_over(docs, proj.include)
    report: dict[str, Any] = {
        "documents": len(docs),
        "corpus_hash": docs.hash,
        "bound_hash": status.bound_hash,
        "changed": list(status.change.changed),
        "added": list(status.change.added),
        "removed": list(status.change.removed),
        "spans": {state.value: n for state, n in sorted(status.counts.items())},
        "waiting_for_review": status.waiting,
        "sharing": writers_json(who),
        "outside_changes": outside,
    }
    if as_json:
        say(json.dumps(report, indent=2))
        return
    say(f"documents  {len(docs)}")
    say(f"corpus     {docs.hash}")
    bound = "same" if status.bound_hash == docs.hash else status.bound_hash
    say(f"bound to   {bound}")
    for key in ("changed", "added", "removed"):
        for doc in report[key]:
            say(f"  {key:<8} {doc}")
    spans = ", ".join(f"{n} {state}" for state, n in report["spans"].items())
    say(f"spans      {spans or 'none'}")
    if status.waiting:
        say(f"{status.waiting} span(s) wait for review: run `spanlab review`")
    found = f"{outside} change(s) made outside spanlab: run `spanlab labels audit`"
    clean = "clean by count (`spanlab labels audit` reads every row)"
    say(f"audit      {found if outside else clean}")
    for line in writers_lines(who):
        say(line)


def writers_json(who: shared_project.Writers) -> dict[str, Any]:
    files = [
        {"what": k.what, "path": str(k.path), "exists": k.found is not None}
        | ({} if k.found is None else {
            "owner": k.found.owner, "group": k.found.group, "mode": f"{k.found.mode:04o}",
            "writable": k.found.writable, "group_writable": k.found.group_writable})
        | ({"fix": k.fix} if k.fix else {})
        for k in who.files
    ]  # fmt: skip
    return {"group": who.group, "why": who.why, "files": files}


def writers_lines(who: shared_project.Writers) -> list[str]:
    """Who can write: the group, then each file that exists (and how to fix one that is not)."""
    if who.why is not None:
        lines = [f"sharing    group {who.group} ({who.why})"]
    elif who.group:
        lines = [
            f"sharing    none: group {who.group} is in spanlab.toml, not on the store's folder"
        ]
    else:
        lines = ["sharing    none: one person's project (`spanlab init --group NAME` shares it)"]
    if who.why is None and not any(k.fix for k in who.files):
        return lines  # one person's project that we may write: nothing more to say
    for kept in who.files:
        if (found := kept.found) is None:
            continue
        state = "group-writable" if found.group_writable else "not group-writable"
        state = state if found.writable else f"{state}, not writable by you"
        owner = f"{found.owner}:{found.group} {found.mode:04o}"
        lines.append(f"  {kept.what:<16} {state:<18} {kept.path}  {owner}")
        if kept.fix:
            lines.append(f"  {'':<16} fix: {kept.fix}")
    return lines
