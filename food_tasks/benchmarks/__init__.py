"""Benchmark-specific core logic (data preparation, per-document scoring, aggregation), one module per benchmark."""
