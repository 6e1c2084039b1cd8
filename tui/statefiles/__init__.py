"""The small files docsagent keeps between runs: settings, history, docs folders."""
