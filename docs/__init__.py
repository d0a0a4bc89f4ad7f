"""The documentation's own scripts: docs/gen_reference.py and docs/gen_pictures.py write
docs/reference/ and docs/pictures/ from the code (a package so mypy checks them)."""
