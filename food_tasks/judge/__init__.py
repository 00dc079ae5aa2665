"""Layer 4, the judge: the LLM judge (client; OpenAI-compatible, cached) and the masking of secrets (redact).
Imports the in-run hooks and below."""
