"""The doc readers: each format's bytes as the text lines every tool numbers.

`registry` knows the formats by suffix and reads a doc with the module of its format
(`plain`, `html`, ...), each of which matches the `Reader` Protocol in `base`. Nothing
here imports from `agent.search` or `agent.tools`: they read docs through this package.
"""
