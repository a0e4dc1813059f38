"""How a question is put to a model: the zero-shot chat prompts (`prompts`), prompts that show a table as
an image (`image_prompts`), the LLM judge's prompt (`judge_prompt`) and the wording the reasoning modes
share (`mode_wording`).

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

_EXPORTS = {
    "PROMPT_VERSION": "prompts",
    "PromptTemplate": "prompts",
    "build_messages": "prompts",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
