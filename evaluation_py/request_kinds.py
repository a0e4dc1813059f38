"""What a request may ask of a backend: its kind, and the capabilities a backend declares.

The inference modes check their `kind` and `needs` against these; they live outside the backends package so
that reading a mode (the scoring CLI looks up a mode's extraction filter) does not import every backend.
"""
REQUEST_KINDS = ("generate", "choose")
# What a backend may declare it can serve; a request needing one its backend lacks fails before any call.
CAPABILITIES = frozenset({"logprobs", "images", "multi_turn"})
