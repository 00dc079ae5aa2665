"""Layer 1, statistics: interval constants, estimators, clustered standard errors and bootstrap (uncertainty),
metric helpers, consistency measures, the units sentence check. Imports nothing of ours but food_tasks.errors."""
