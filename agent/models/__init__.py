"""Models behind one small Protocol: OpenAI-compatible, offline and scripted."""
