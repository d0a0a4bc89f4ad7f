"""The run folder (§9): `model` is run.json's one typed owner, `RunFile`; every view is
written from a RunFile — report.md, junit.xml, the frontier, the terminal summary, the
boundary view — and `folder.write_run` writes them all; the runs index lists run folders
for triage. Nothing here knows how a run was computed (that is `evaluator.pipeline`).
"""
