"""Layer 5, tasks: the one catalogue of our task YAMLs, the registry record each benchmark declares, the variants
a task declares (noimage), YAML generation (taskgen). Imports the judge and below."""
