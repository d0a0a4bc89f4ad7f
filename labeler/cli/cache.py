"""`spanlab cache`: what the project keeps on disk for its runs, and pruning it (§6).

The command parses, makes one call into `evaluator.pipeline.storage` and renders; names
from the disk are shown through the same escaping as every other outside text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from labeler.cli._common import ChromaOpt, handles_errors, project, say
from labeler.core.corpus.walk import shown
from labeler.core.secrets import redact

if TYPE_CHECKING:
    from evaluator.pipeline.storage import ServerStorage
    from evaluator.retrieval.chroma_lease import Collection

app = typer.Typer()
"""The cache command, at the top of the command line."""


def megabytes(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


@app.command("cache", epilog="Example: spanlab cache --prune")
@handles_errors
def cache_command(
    prune: Annotated[
        bool, typer.Option("--prune", help="Remove collections no run needs and none holds.")
    ] = False,
    chroma_url: ChromaOpt = None,
) -> None:
    """The embedding cache and the Chroma collections: sizes, and which no run needs."""
    from evaluator.pipeline import storage
    from evaluator.retrieval.chroma import parse_url

    proj = project().override(chroma_url=chroma_url)
    if proj.chroma_url is not None:
        parse_url(proj.chroma_url)
    if prune:
        dropped, freed = storage.prune(proj)
        for c in dropped:
            say(f"removed  {shown(c.name)}  {shown(c.candidate)}")
        say(f"{len(dropped)} collection(s) removed, {megabytes(freed)} freed")
        deferred(storage.storage(proj).collections)
        return
    found = storage.storage(proj)
    say(f"embedding cache  {shown(str(found.cache_path))}  {megabytes(found.cache_bytes)}")
    for model, n in sorted(found.vectors.items()):
        say(f"  {n:>9,} vectors  {shown(model)}")
    say(f"chroma           {shown(str(found.chroma_path))}  {megabytes(found.chroma_bytes)}")
    for c in found.collections:
        state = "stale" if c.name in found.stale else "live" if c.complete else "building"
        held = f"  {c.versions} corpus version{'s' * (c.versions > 1)}" if c.versions else ""
        say(f"  {state:<8} {shown(c.name)}  {shown(c.candidate)}  {c.chunks:,} chunks{held}")
    if found.stale:
        say(f"{len(found.stale)} collection(s) no run needs: spanlab cache --prune")
    deferred(found.collections)
    if proj.chroma_url is not None:
        on_server(storage.server_storage(proj.chroma_url, proj.chroma_timeout))


def on_server(found: ServerStorage) -> None:
    """The server's spanlab collections: listed, never pruned here (other projects share
    them; each eval cleans up its own candidates')."""
    if found.error is not None:
        say(redact(f"chroma server    {shown(found.url)}  not listed: {shown(found.error)}"))
        return
    url = redact(shown(found.url))
    say(f"chroma server    {url}  {len(found.collections)} spanlab collection(s)")
    for c in found.collections:
        state = ("building" if c.name in found.building else "stale" if c.name in found.stale
                 else "live" if c.complete else "partial")  # fmt: skip
        held = f"  {c.versions} corpus version{'s' * (c.versions > 1)}" if c.versions else ""
        runs = found.readers.get(c.name, 0)
        reading = f"  {runs} run{'s' * (runs > 1)} reading" if runs else ""
        what = f"{shown(c.name)}  {shown(c.candidate)}  {c.chunks:,} chunks"
        say(f"  {state:<8} {what}{held}{reading}")
    if found.stale:
        say(f"{len(found.stale)} of them an earlier spanlab's: the next eval of their "
            "candidate removes them")  # fmt: skip
    if found.stale_marks:
        say(f"{found.stale_marks} lock or lease marker(s) a killed run left: the next eval of "
            "their candidate removes them")  # fmt: skip
    deferred(found.collections)


def deferred(found: Sequence[Collection]) -> None:
    """Say which collections still hold another corpus version's chunks (a run used it)."""
    if n := sum(1 for c in found if c.versions > 1):
        say(f"{n} collection(s) also hold another corpus version a run was using: "
            "the next eval removes its chunks")  # fmt: skip
