"""The package list, computed (everything else is in pyproject.toml).

``packages.find`` in pyproject.toml only finds folders whose path is the package name, so it cannot add
``food_tasks.utils`` and ``food_tasks.yaml_tasks`` (the top-level folders ``utils/`` and ``yaml_tasks/``,
mapped by ``[tool.setuptools.package-dir]``). Searching ``food_tasks*`` only keeps ``utils``, ``yaml_tasks``,
``tests``, ``bench`` and ``scripts`` from becoming top-level import names (none of them is installed); a new
benchmark package under ``food_tasks/benchmarks/`` is found without an edit here.
"""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["food_tasks", "food_tasks.*"]) + ["food_tasks.utils", "food_tasks.yaml_tasks"])
