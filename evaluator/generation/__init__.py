"""Generation after retrieval (§23): a stage of its own, called once by the pipeline's
conductor (`evaluator.pipeline.generated`) when the candidates file has `[generation]`.

It offers one question to a chat completions server (`client`), answers cached by what
decides them (`cache`), a candidate's context at budget as numbered sources (`prompt`),
asking many with counts (`asking`), the deterministic checks of an answer, each its own
measure (`checks`), the stage itself over plain retrieval values (`stage`), answers compared
with the baseline's (`compare`), run.json's section (`summary`) and generation.jsonl's one
owner (`run_file`).
"""
