"""Layer 10, compare: the text `food-tasks compare` prints (command, its one entry: read, compute, then format): its
tables (table: the main table, image gains and beyond-accuracy measures). Imports runs/ and below, nothing of the
report."""
