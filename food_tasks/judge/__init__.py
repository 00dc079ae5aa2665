"""Layer 4, the judge: the LLM judge (client; OpenAI-compatible, cached; one judge or a list; how its requests
travel: transport; its disk cache: store), a task's panel of
judges with its repeats, tokens and cost (panel), their verdicts and agreement on a task's items (verdicts), model
families (family), model outputs addressed to the judge (injection) and the masking of secrets (redact).
Imports the in-run hooks and below."""
