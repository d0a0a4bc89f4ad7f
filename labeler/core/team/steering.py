"""The settings that steer a command (§21): where it reads or writes, what it follows,
which server it calls, which code it loads. One registry, so spanlab.toml's reader, the
team file's and the candidates file's checks agree on what a member may not set for a lead.

In a team project (a `spanlab.team.toml` beside spanlab.toml) these count only from a file a
lead owns that the group can neither write nor replace (authority's file rule); a candidates
file another account can write may not hold them at all (STYLE 20: it is data to check).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from typing import Any

from labeler.core.files.access import name_of_group, name_of_user

PROJECT_KEYS: Mapping[str, str] = {
    "corpus": "the folder documents are read from",
    "include": "which files of the corpus are read",
    "follow_symlinks": "whether links in the corpus are followed",
    "encoding": "how the corpus's bytes are read (a wrong codec rebinds every label)",
    "db": "the label store read and written",
    "chroma_path": "the folder embedded Chroma writes",
    "chroma_url": "the Chroma server called",
    "chroma_timeout": "how long a call to the Chroma server may take",
    "embedding": "the embedding model loaded (and the server called)",
    "embedding_cache": "the cache vectors are read from and written to",
    "group": "the group the files spanlab writes are shared with",
}
"""spanlab.toml's keys that steer, and what each steers (the runs folder is always
`.spanlab/runs`: no key moves it)."""

CANDIDATE_KEYS: Mapping[str, str] = {
    "url": 'the search server called (`retriever = "http"`)',
    "rerank.url": "the reranking server called",
    "ranked": "the ranked file read",
    "options.path": 'the chunk file read (`splitter = "chunks"`)',
    "function": 'the Python code imported (`splitter = "python"`)',
    "embedding": "the embedding model loaded",
    "generation.url": "the generation server called",
    "generation.template": "the prompt template read",
    "generation.key_env": "the environment variable whose key is sent",
}
"""A candidates file's keys that steer; `embedding` only when it names a model loaded by
name or path (`minilm` is spanlab's own; `openai:` calls the server of the runner's own
SPANLAB_EMBEDDING_URL)."""

HARMLESS_EMBEDDINGS = ("minilm", "openai:")
"""`embedding` values a candidates file may hold whoever wrote it (exact, or a prefix)."""


def steering_embedding(value: Any) -> bool:
    """Whether a candidates file's `embedding` value loads a model someone else chose."""
    return isinstance(value, str) and not any(
        value == h or (h.endswith(":") and value.startswith(h)) for h in HARMLESS_EMBEDDINGS
    )


def others_may_write(info: os.stat_result) -> str | None:
    """Why a file (as `fstat` shows it) is one another account can write — owned by
    someone other than the person running or root, or writable by its group or others —
    in words naming its owner, group and mode; None when it is the runner's (or root's)
    alone."""
    owner, mode = info.st_uid, stat.S_IMODE(info.st_mode)
    said = (f"owner {name_of_user(owner)}, group {name_of_group(info.st_gid)}, "
            f"mode {mode:04o}")  # fmt: skip
    if owner not in (os.geteuid(), 0):
        return f"it is another account's ({said})"
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"its group or others may write it ({said})"
    return None


def ignored_warning(keys: tuple[str, ...], file: str, lead_file: str) -> str:
    """The one warning a command prints for steering keys a group-writable file set."""
    return (f"warning: {file} sets {', '.join(keys)}, ignored: in a team project what steers "
            f"a command (where it reads, writes, follows or calls) counts only from {lead_file} "
            f"or a {file} only a lead may write; the lead's value or the default is used "
            f"(a lead moves the line into {lead_file}, or removes it)")  # fmt: skip
