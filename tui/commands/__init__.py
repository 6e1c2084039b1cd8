"""The commands behind `docsagent`: options, runs, progress and reports."""
