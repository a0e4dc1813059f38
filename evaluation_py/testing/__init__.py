"""Test helpers, used by tests/ and bench/ only: a fake OpenAI-compatible server, request factories,
deterministic fake analysis inputs (`analysis_inputs`)."""
