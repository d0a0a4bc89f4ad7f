"""The run folder (§9): its one typed owner of run.json, and every view written from it.

report.md, junit.xml and the frontier plot are written beside run.json; the runs index
lists run folders for triage; the boundary view prints a query's cuts as text.
"""
