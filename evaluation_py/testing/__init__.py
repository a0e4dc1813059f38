"""Test helpers: a fake OpenAI-compatible server and request factories (standard library only)."""
