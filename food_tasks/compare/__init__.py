"""Layer 10, compare: the text `food-tasks compare` prints (command, its one entry): its table (table), image gains
and measures (beyond). Imports the report and below."""
