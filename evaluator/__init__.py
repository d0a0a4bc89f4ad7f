"""The headless evaluator: chunkers, embeddings, indexes, retrievers, metrics, runs."""

import os

# transformers announces on import that PyTorch is missing; spanlab never needs it.
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
