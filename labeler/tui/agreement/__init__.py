"""The agreement feature: adjudicating double-annotated queries (§11).

`model` (no Textual) orders the waiting queries and lays versions over the text;
`widgets` draws them; `screen` takes the reviewer's keys to the store.
"""
