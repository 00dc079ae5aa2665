"""food-tasks: food-domain vision-language benchmarks as an lmms-eval task pack.

The package has three parts, all under the single import name ``food_tasks``:

* ``food_tasks`` itself: the shared core (data access, parsing, metrics,
  registration, CLI), pure and unit-tested;
* ``food_tasks.utils`` (``utils/`` in the repository): one thin hook module per
  benchmark, referenced from YAML as ``!function food_tasks.utils.<bench>.<fn>``;
* ``food_tasks.yaml_tasks`` (``yaml_tasks/`` in the repository): the task
  directory that lmms-eval indexes.
"""

__version__ = "0.1.0"
