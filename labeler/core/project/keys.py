"""Every key spanlab.toml (and spanlab.team.toml) accepts, with its type, default and meaning.

`config` takes its known keys and which hold a flag from here, and docs/gen_reference.py
writes docs/reference/project.md from it: a key is added in one place, accepted and
documented at once.
"""

from __future__ import annotations

from labeler.core.project.key_table import Key

KEYS = (
    Key("corpus", str, "unset", "The corpus folder, relative to spanlab.toml "
        "(`spanlab init` writes it)."),
    Key("db", str, '".spanlab/labels.db"', "The label store (SQLite)."),
    Key("chroma_path", str, '".spanlab/chroma"', "Embedded Chroma's folder."),
    Key("chroma_url", str, "unset", "A Chroma server (`http://host:port`) used instead of the "
        "embedded one (`--chroma-url` overrides it)."),
    Key("chroma_timeout", float, "8", "Seconds each call to the Chroma server may take, "
        "connect, send and the whole body (0.1 to 600)."),
    Key("embedding", str, '"minilm"', "The default embedding model."),
    Key("encoding", str, '"utf-8"', "Codec the corpus files are read with."),
    Key("follow_symlinks", bool, "false", "Read what corpus symlinks point to, even outside "
        "the folder (`init --follow-symlinks`)."),
    Key("blind", bool, "false", "Double annotation: each annotator labels and sees only their "
        "own version. Counts only from a file a lead owns (see the team guide)."),
    Key("trim_spans", bool, "true", "Leave whitespace at a selection's edges out of the span "
        "it adds."),
    Key("embedding_cache", str, '".spanlab/embeddings.db"', "The embedding cache; "
        "`$SPANLAB_CACHE` overrides it."),
    Key("include", list, "the text suffixes", "Globs of the corpus files that are documents "
        '(`["**/*.md", "docs/*.rst"]`; `**/` any folders; a glob without `/` matches a name '
        "at any depth; at most 512 characters, 4 `**` and 16 other `*` or `?`)."),
    Key("group", str, "unset", "The Unix group the project is shared with (`init --group`)."),
    Key("team", dict, "unset", "`[team]`: the leads and the annotators (below). Counts only "
        "from a file a lead owns; write it last, after every top-level key."),
)  # fmt: skip
"""spanlab.toml's top-level keys, in the order the reference lists them."""

TEAM = (
    Key("leads", list, "[]", "Logins that import, assign, adjudicate, review stale spans, "
        "`init` and `eval`."),
    Key("annotators", list, "[]", "Logins that label their own versions."),
)  # fmt: skip
"""`[team]`'s keys (labeler.core.team.roles.ROLES; a test holds the two equal)."""


def names() -> set[str]:
    """Every top-level key."""
    return {k.name for k in KEYS}


def flags() -> set[str]:
    """Keys that hold true or false."""
    return {k.name for k in KEYS if k.kind is bool}
