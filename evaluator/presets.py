"""Built-in candidates files (`--preset`): a team evaluates a published chunking study's
settings on its own labels before it writes a candidates file of its own."""

from __future__ import annotations

from evaluator.candidates import CandidatesFile, parse
from labeler.core.errors import ConfigError

# `chroma-report` reruns the settings of Chroma's chunking report ("Evaluating Chunking
# Strategies for Retrieval", 2024) on the user's own labels, so their numbers sit beside
# the published ones (all-MiniLM-L6-v2: tokens 250/125 recall 82.4; recursive 200/0
# recall 76.6, IoU 4.1). Sizes count cl100k tokens, as the report did.

CL100K = "tiktoken:cl100k_base"

PRESETS = {
    "chroma-report": {
        "settings": {"baseline": "tokens-250-125", "k": 5, "embedding": "minilm",
                     "retriever": "chroma", "tokenizer": CL100K},
        "candidate": [
            {"name": "tokens-250-125", "splitter": "tokens", "size": 250, "overlap": 125,
             "tokenizer": CL100K},
            {"name": "recursive-200-0", "splitter": "recursive", "unit": "tokens", "size": 200,
             "overlap": 0, "tokenizer": CL100K},
            {"name": "recursive-400-0", "splitter": "recursive", "unit": "tokens", "size": 400,
             "overlap": 0, "tokenizer": CL100K},
            {"name": "recursive-800-400", "splitter": "recursive", "unit": "tokens",
             "size": 800, "overlap": 400, "tokenizer": CL100K},
        ],
    },
}  # fmt: skip


def preset_file(name: str) -> CandidatesFile:
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r} (known: {', '.join(PRESETS)})", key="preset")
    return parse(PRESETS[name], file=f"preset:{name}", digest=f"preset:{name}")
