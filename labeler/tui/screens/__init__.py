"""App-wide screens any feature may push: the keys (help), the label stats, small dialogs.

A screen that belongs to one feature lives in that feature's package (`label/`,
`review/`, `triage/`); only screens shared across them, or owned by the app, live here.
"""
