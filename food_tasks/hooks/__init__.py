"""Layer 3, the in-run hooks: what a benchmark's hook functions use during a run: the hook convention
(convention: Metric, MetricTable, Payload), answer parsing, JSON in prose, backend failure markers, chat messages,
option rotation, outputs that ran out of tokens (truncation), caption metrics (BERTScore, COCO). Imports data and
below."""
