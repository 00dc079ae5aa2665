"""The task directory lmms-eval indexes (``food-tasks path`` prints it)."""
