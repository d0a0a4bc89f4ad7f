"""Generation after retrieval (§23): a stage of its own, not yet called by the pipeline.

It offers the `[generation]` table's value (`config`), one question to a chat completions
server (`client`), answers cached by what decides them (`cache`), a candidate's context at
budget as numbered sources (`prompt`), asking many with counts (`asking`), and the
deterministic checks of an answer, each its own measure (`checks`).
"""
