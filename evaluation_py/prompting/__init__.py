"""How a question is put to a model: the zero-shot chat prompts (`prompts`), prompts that show a table as
an image (`image_prompts`), the LLM judge's prompt (`judge_prompt`), the wording the reasoning modes
share (`mode_wording`) and the table's structure a code mode's prompt shows instead of its cells
(`table_structure`).

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "PROMPT_VERSION": "prompts",
    "PromptTemplate": "prompts",
    "build_messages": "prompts",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
