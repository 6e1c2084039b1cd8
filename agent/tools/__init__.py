"""The tools a model can call: the registry that serves them, and the docs tools themselves."""
