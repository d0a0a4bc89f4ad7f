"""The settings that steer a command (§21): where it reads or writes, what it follows,
which server it calls, which code it loads. One registry, so spanlab.toml's reader, the
team file's and the candidates file's checks agree on what a member may not set for a lead.

In a team project (a `spanlab.team.toml` beside spanlab.toml) these count only from a file a
lead owns that the group can neither write nor replace (authority's file rule); a candidates
file another account can write may not hold them at all (STYLE 20: it is data to check).
"""

from __future__ import annotations

import grp
import os
import pwd
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


def others_in_group(gid: int) -> bool:
    """Whether an account other than the person running belongs to group `gid` (listed in
    it, or with it as primary group): a user-private group (umask 002) holds no one else."""
    me = pwd.getpwuid(os.geteuid()).pw_name if _known_uid(os.geteuid()) else None
    try:
        listed = set(grp.getgrgid(gid).gr_mem)
    except KeyError:
        return True  # a group without a name: no way to tell who is in it
    primary = {p.pw_name for p in pwd.getpwall() if p.pw_gid == gid}
    return bool((listed | primary) - {me})


def _known_uid(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def shared_writers(info: os.stat_result) -> str | None:
    """`others_may_write`, counting a group-writable file only when another account is in
    its group: why another person may write the file, or None."""
    why = others_may_write(info)
    if why is None or info.st_uid not in (os.geteuid(), 0) or info.st_mode & stat.S_IWOTH:
        return why
    return why if others_in_group(info.st_gid) else None


def unguarded_warning(keys: tuple[str, ...], file: str, why: str, lead_file: str) -> str:
    """The warning for a project without roles whose spanlab.toml another member may write:
    its steering keys count (there is no lead yet), so the person running hears who may
    have set them."""
    return (f"warning: {file} sets {', '.join(keys)}, and {why}: whoever writes it chooses "
            f"where this command reads, writes and calls; make it yours alone (chmod g-w "
            f"{file}) or name leads in {lead_file}, where what steers counts only from a "
            "lead")  # fmt: skip
