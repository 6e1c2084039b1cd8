"""Any OpenAI-compatible chat-completions endpoint, through the `openai` SDK (imported lazily)."""
