"""`docsagent mcp`: the docs tools served over the Model Context Protocol."""
