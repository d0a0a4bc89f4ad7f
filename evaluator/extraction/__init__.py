"""Extractors as candidates (§22): the stage before chunking, judged like chunkers.

`config` reads `[extraction]`; `variant` re-extracts the sources by each alternative;
`evidence` re-anchors every span into its text and names what the extractor lost, moved or
broke; `compare` runs the baseline candidate over both texts and counts gained and lost
queries. The run's record of it is `evaluator.runs.extraction_record`.
"""
