"""Kept at its old path for users: ``food_tasks.parsing.extract_choice`` (CONTRIBUTING) and the other answer
parsers now live in :mod:`food_tasks.hooks.parsing`; this module re-exports them."""

from food_tasks.hooks.parsing import *  # noqa: F403
from food_tasks.hooks.parsing import __all__  # noqa: F401
