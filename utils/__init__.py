"""Benchmark hook modules referenced from YAML (``!function food_tasks.utils.<bench>.<fn>``)."""
