"""Layer 7, the lmms-eval boundary: what lmms-eval calls during a run or what touches its objects and files:
the wraps of its task index and table (harness), standard errors and --baseline (errorbars), the printed table
(results_table), the reader of its output files (runfiles), serving notes, the demo's tiny model. Imports regional
tasks and below. The food_tasks_replay model stays at the face (food_tasks/replay_model.py): results files name its
class path."""
