"""Layer 6, regional tasks: settings, documents, scoring (scoring), their data files and checks (files), their
YAML (config), `food-tasks validate` (check). The task class users name, food_tasks.regional.RegionalTask, is at
the face (food_tasks/regional.py). No lmms-eval import; imports tasks and below."""
